package io.sluice.buffers;

import io.sluice.testing.BackgroundTask;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A writer thread fills builders while two reader threads consume them (a consumer and its copy) and check every
 * byte. The pool is small, so a segment recycled too early would be rewritten under a reader and show up as a
 * wrong byte.
 */
class BufferBuilderConsumerStressTest {

    private static final int SEGMENT_SIZE = 4096;

    private static final long TOTAL_BYTES = 16L << 20;

    /** End-of-stream marker for the hand-off queues. */
    private static final BufferConsumer END = new BufferConsumer(
            new Buffer(MemorySegment.wrap(new byte[0]), BufferRecycler.DISCARD, false, 0));

    /** The byte at stream position {@code position}: not periodic in the segment size. */
    private static byte expectedByte(long position) {
        return (byte) ((position * 0x9E3779B1L) >>> 24);
    }

    // BB-1, BB-3, BB-4, BB-6 across threads; H-1
    @Test
    void writerAndTwoReaderThreads_everyCommittedByteArrivesOnceInOrder() throws Exception {
        NetworkBufferPool global = new NetworkBufferPool(8, SEGMENT_SIZE);
        LocalBufferPool pool = global.createBufferPool(4, 4);
        BlockingQueue<BufferConsumer> toFirstReader = new ArrayBlockingQueue<>(4);
        BlockingQueue<BufferConsumer> toSecondReader = new ArrayBlockingQueue<>(4);

        BackgroundTask<Long> writer = BackgroundTask.start("writer", () -> write(pool, List.of(toFirstReader, toSecondReader)));
        BackgroundTask<Long> firstReader = BackgroundTask.start("reader-1", () -> read(toFirstReader));
        BackgroundTask<Long> secondReader = BackgroundTask.start("reader-2", () -> read(toSecondReader));

        assertEquals(TOTAL_BYTES, writer.result().get(100, TimeUnit.SECONDS));
        assertEquals(TOTAL_BYTES, firstReader.result().get(100, TimeUnit.SECONDS));
        assertEquals(TOTAL_BYTES, secondReader.result().get(100, TimeUnit.SECONDS));
        assertEquals(0, pool.bestEffortGetNumOfUsedBuffers());
        pool.lazyDestroy();
        assertEquals(global.getTotalNumberOfMemorySegments(), global.getNumberOfAvailableMemorySegments());
        global.destroy();
    }

    /** Writes the byte stream in random-sized appends, committing most of them; returns the bytes written. */
    private static long write(LocalBufferPool pool, List<BlockingQueue<BufferConsumer>> readers) throws Exception {
        Random random = new Random(42);
        ByteBuffer chunk = ByteBuffer.allocate(1000);
        long position = 0;
        while (position < TOTAL_BYTES) {
            BufferBuilder builder = pool.requestBufferBuilderBlocking(0);
            BufferConsumer consumer = builder.createBufferConsumer();
            BufferConsumer copy = consumer.copy();
            readers.get(0).put(consumer); // ownership of each consumer passes to its reader
            readers.get(1).put(copy);
            while (!builder.isFull() && position < TOTAL_BYTES) {
                int length = (int) Math.min(1 + random.nextInt(chunk.capacity()), TOTAL_BYTES - position);
                chunk.clear();
                for (int i = 0; i < length; i++) {
                    chunk.put(expectedByte(position + i));
                }
                chunk.flip();
                int appended = builder.append(chunk);
                position += appended;
                if (random.nextInt(4) != 0) {
                    builder.commit(); // the rest are published by a later commit or by finish()
                }
                if (chunk.hasRemaining()) {
                    assertEquals(0, builder.getWritableBytes());
                }
                // bytes left in the chunk are regenerated for the next builder from the stream position
            }
            builder.finish();
            builder.close();
        }
        for (BlockingQueue<BufferConsumer> reader : readers) {
            reader.put(END);
        }
        return position;
    }

    /** Builds from each consumer until it is finished, checking every byte; returns the bytes read. */
    private static long read(BlockingQueue<BufferConsumer> consumers) throws Exception {
        long position = 0;
        for (BufferConsumer consumer = consumers.take(); consumer != END; consumer = consumers.take()) {
            while (true) {
                boolean finished = consumer.isFinished(); // read before building: a finish seen here is final
                Buffer built = consumer.build();
                ByteBuffer bytes = built.getNioBufferReadable();
                for (int i = 0; i < bytes.limit(); i++) {
                    if (bytes.get(i) != expectedByte(position + i)) {
                        throw new AssertionError("wrong byte at stream position " + (position + i));
                    }
                }
                position += bytes.limit();
                built.recycleBuffer();
                if (finished || consumer.isFinished()) {
                    break;
                }
                if (bytes.limit() == 0) {
                    Thread.onSpinWait(); // nothing committed yet; the writer is on another core
                }
            }
            consumer.close();
        }
        return position;
    }
}
