package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferBuilder;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One producer thread and one reader thread on one subpartition, each fast or slow: every byte arrives once and
 * in order, the reader waits only on notifications, and the pool is all back at the end (docs/behaviours.md PS-4).
 */
@Timeout(60)
class PipelinedSubpartitionConcurrencyTest {

    private static final int BUFFERS = 128;
    private static final int SEGMENT = 32 * 1024;
    /** A pool far smaller than the data: the producer must wait for the reader. */
    private static final int POOL_SIZE = 4;
    /** Pause of the slow side per buffer: makes the other side overtake it; not a correctness wait. */
    private static final long SLOW_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final PartitionFixture fixture = new PartitionFixture(16, SEGMENT);

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    /** Byte {@code offset} of buffer {@code index}: tells a lost, repeated or reordered buffer. */
    private static byte expectedByte(int index, int offset) {
        return (byte) (index * 31 + offset);
    }

    // PS-4 [core]
    @ParameterizedTest(name = "slow producer {0}, slow reader {1}")
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void producerAndReaderThreads_everyBufferArrivesOnceInOrder(boolean slowProducer, boolean slowReader)
            throws Exception {
        ResultPartition partition = fixture.newPartition().buffers(POOL_SIZE, POOL_SIZE).setUp();
        PipelinedSubpartition subpartition = partition.subpartition(0);
        RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
        ResultSubpartitionView view = subpartition.createReadView(listener);

        CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> readAll(view, listener, slowReader));
        produce(partition.bufferPool(), subpartition, slowProducer);

        assertEquals((long) BUFFERS * SEGMENT, read.get(50, TimeUnit.SECONDS), "bytes read");
        assertTrue(view.isReleased());
    }

    private static void produce(LocalBufferPool pool, PipelinedSubpartition subpartition, boolean slow)
            throws InterruptedException {
        byte[] half = new byte[SEGMENT / 2];
        for (int index = 0; index < BUFFERS; index++) {
            if (slow) {
                LockSupport.parkNanos(SLOW_NANOS);
            }
            BufferBuilder builder = pool.requestBufferBuilderBlocking(0);
            subpartition.add(builder.createBufferConsumerFromBeginning(), false);
            for (int part = 0; part < 2; part++) {
                for (int i = 0; i < half.length; i++) {
                    half[i] = expectedByte(index, part * half.length + i);
                }
                builder.appendAndCommit(ByteBuffer.wrap(half));
                if (part == 0 && index % 3 == 0) {
                    subpartition.flush(); // the reader may take the first half while the second is written
                }
            }
            builder.finish();
            builder.close();
        }
        subpartition.finish();
    }

    /** Reads to the end of the partition, checking every byte; returns the number of data bytes. */
    private static long readAll(ResultSubpartitionView view, RecordingAvailabilityListener listener, boolean slow) {
        long position = 0;
        try {
            while (true) {
                int seen = listener.total();
                for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
                    Buffer buffer = next.buffer();
                    try {
                        if (!buffer.isBuffer()) {
                            assertTrue(EventSerializer.isEndOfPartition(buffer));
                            view.releaseAllResources();
                            return position;
                        }
                        ByteBuffer bytes = buffer.getNioBufferReadable();
                        while (bytes.hasRemaining()) {
                            int index = (int) (position / SEGMENT);
                            int offset = (int) (position % SEGMENT);
                            byte actual = bytes.get();
                            if (actual != expectedByte(index, offset)) { // no message string per byte: 4 MiB
                                fail("byte " + offset + " of buffer " + index + " is " + actual);
                            }
                            position++;
                        }
                    } finally {
                        buffer.recycleBuffer();
                    }
                    if (slow) {
                        LockSupport.parkNanos(SLOW_NANOS);
                    }
                }
                listener.awaitMoreThan(seen);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("reader interrupted at byte " + position, e);
        }
    }
}
