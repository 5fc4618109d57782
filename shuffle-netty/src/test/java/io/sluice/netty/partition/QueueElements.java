package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.sluice.buffers.BufferBuilder;
import io.sluice.buffers.BufferConsumer;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.testing.TestRecords;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the elements a subpartition queues, from a partition's own pool and the way {@link ResultPartition}
 * makes them: data buffers under construction, finished data buffers, and events. {@link #close()} closes the
 * builders the test left open, so that the fixture's leak check sees every segment.
 *
 * <p>Test thread only.
 */
final class QueueElements implements AutoCloseable {

    private final LocalBufferPool pool;
    private final List<BufferBuilder> openBuilders = new ArrayList<>();

    QueueElements(LocalBufferPool pool) {
        this.pool = pool;
    }

    /** The bytes {@link #finished(int, int)} and {@link #unfinished(int, int)} write for {@code id}. */
    static byte[] content(int id, int size) {
        return TestRecords.recordBytes(id, 0, size);
    }

    /** A finished data buffer holding {@link #content}{@code (id, size)}; the caller owns the consumer. */
    BufferConsumer finished(int id, int size) {
        BufferBuilder builder = unfinished(id, size);
        BufferConsumer consumer = builder.createBufferConsumerFromBeginning();
        builder.finish();
        closeBuilder(builder);
        return consumer;
    }

    /**
     * A data buffer under construction holding {@link #content}{@code (id, size)}, committed. The test adds
     * {@code builder.createBufferConsumerFromBeginning()}; the builder stays open until {@link #closeBuilder} or
     * {@link #close()}.
     */
    BufferBuilder unfinished(int id, int size) {
        BufferBuilder builder = pool.requestBufferBuilder();
        assertNotNull(builder, "the test pool ran out of buffers: " + pool);
        openBuilders.add(builder);
        builder.appendAndCommit(ByteBuffer.wrap(content(id, size)));
        return builder;
    }

    /** Finishes {@code builder} (as the producer does when it is full) and releases the producer's reference. */
    void closeBuilder(BufferBuilder builder) {
        builder.finish();
        builder.close();
        openBuilders.removeIf(open -> open == builder);
    }

    /** A user event carrying {@code payload}; the caller owns the consumer. */
    static BufferConsumer event(String payload) {
        return new BufferConsumer(EventSerializer.userEvent(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8))));
    }

    @Override
    public void close() {
        for (BufferBuilder builder : openBuilders) {
            builder.close();
        }
        openBuilders.clear();
    }
}
