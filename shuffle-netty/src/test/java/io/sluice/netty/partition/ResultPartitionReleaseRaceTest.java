package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ShuffleException;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.testing.MemoryAssertions;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.BackgroundTask;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RP-2: a release from another thread while the producer writes without a lock: the producer's buffers
 * under construction stay with it until its next call, so a segment never goes back to a pool while the producer may
 * still write into it; the producer only ever sees {@link ShuffleException}; every segment comes back.
 */
@Timeout(60)
class ResultPartitionReleaseRaceTest {

    private static final int SEGMENT = PartitionFixture.DEFAULT_SEGMENT_SIZE;

    /** What the test writes into the segments that are free after a release. */
    private static final byte PATTERN = (byte) 0x5A;

    /** Few segments: after a release the test can take every free one. */
    private final PartitionFixture fixture = new PartitionFixture(128, SEGMENT);
    private final ExecutorService producerThread = Executors.newSingleThreadExecutor(
            runnable -> new Thread(runnable, "test-producer"));

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        producerThread.shutdownNow();
        assertTrue(producerThread.awaitTermination(30, TimeUnit.SECONDS), "producer thread did not stop");
        fixture.close();
    }

    /** Runs {@code call} on the one producer thread and waits for it; its exception comes back as the cause. */
    private void onProducerThread(BackgroundTask.Body call) throws Exception {
        producerThread.submit(() -> {
            call.run();
            return null;
        }).get(30, TimeUnit.SECONDS);
    }

    private static void emitOneSmallRecordToEach(ResultPartition partition) throws IOException {
        partition.emitRecord(TestRecords.record(0, 0, 8), 0);
        partition.emitRecord(TestRecords.record(1, 0, 8), 1);
    }

    // Many rounds, seeded timing: release, releasePartitionsLocally, close and fail from the test thread while a
    // producer thread emits, broadcasts and sends events and a reader drains both subpartitions. Right after the
    // release the test takes every free segment of the global pool and fills it with a pattern. Were a foreign
    // release to close a builder under the producer, its segment would be among them and the producer would scribble
    // over the pattern, or meet a closed builder (IllegalStateException instead of the release's ShuffleException).
    @Test
    void releaseFromAnotherThreadWhileTheProducerWrites_producerSeesOnlyShuffleException_noFreedSegmentIsWritten()
            throws Exception {
        Random random = new Random(0x5EED_10L);
        NetworkBufferPool global = fixture.globalPool();
        for (int round = 0; round < 300; round++) {
            ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(3, 3 + random.nextInt(30))
                    .flushInterval(Duration.ZERO).setUp();
            ResultSubpartitionView[] views = {
                partition.createSubpartitionView(0, new RecordingAvailabilityListener()),
                partition.createSubpartitionView(1, new RecordingAvailabilityListener())};
            BackgroundTask<Void> reader = BackgroundTask.start("draining-reader-" + round, () -> drain(partition,
                    views));
            CountDownLatch writing = new CountDownLatch(1);
            BackgroundTask<Void> producer = startRacingProducer(partition, random.nextLong(), writing, round);
            assertTrue(writing.await(30, TimeUnit.SECONDS), "producer did not start");
            int delay = random.nextInt(3000);
            for (int spin = 0; spin < delay; spin++) {
                Thread.onSpinWait();
            }
            switch (random.nextInt(4)) {
                case 0 -> partition.release(new IOException("cancelled in round " + round));
                case 1 -> fixture.manager().releasePartitions(List.of(partition.partitionId()), null);
                case 2 -> partition.close();
                default -> partition.fail(new IOException("failed in round " + round));
            }
            List<MemorySegment> victims = global.requestUnpooledMemorySegments(
                    global.getNumberOfAvailableMemorySegments());
            for (MemorySegment victim : victims) {
                fill(victim);
            }

            producer.await(); // any exception but the release's ShuffleException fails here
            reader.await();
            for (MemorySegment victim : victims) {
                assertFilled(victim, round);
            }
            global.recycleUnpooledMemorySegments(victims);
            assertTrue(partition.isReleased(), "round " + round);
            // The producer left through its ShuffleException, which returned its builders.
            MemoryAssertions.assertAllSegmentsReturned(global);
        }
    }

    private static BackgroundTask<Void> startRacingProducer(ResultPartition partition, long seed,
                                                            CountDownLatch writing, int round) {
        return BackgroundTask.start("racing-producer-" + round, () -> {
            Random ops = new Random(seed);
            try {
                for (int i = 0; ; i++) {
                    int kind = ops.nextInt(20);
                    if (kind == 0) {
                        partition.broadcastRecord(TestRecords.record(2, i, ops.nextInt(SEGMENT)));
                    } else if (kind == 1) {
                        partition.broadcastEvent(ByteBuffer.wrap(("e" + i).getBytes(StandardCharsets.UTF_8)),
                                false);
                    } else {
                        partition.emitRecord(TestRecords.record(i & 1, i, ops.nextInt(3 * SEGMENT)), i & 1);
                    }
                    writing.countDown();
                }
            } catch (ShuffleException expected) {
                // the only way out
            }
        });
    }

    /** Reads and recycles everything both views offer until the partition is released. */
    private static void drain(ResultPartition partition, ResultSubpartitionView[] views) {
        while (!partition.isReleased()) {
            for (ResultSubpartitionView view : views) {
                BufferAndBacklog next = view.getNextBuffer();
                if (next != null) {
                    next.buffer().recycleBuffer();
                }
            }
        }
        for (ResultSubpartitionView view : views) {
            view.releaseAllResources();
        }
    }

    private static void fill(MemorySegment segment) {
        for (int i = 0; i < segment.size(); i++) {
            segment.put(i, PATTERN);
        }
    }

    private static void assertFilled(MemorySegment segment, int round) {
        for (int i = 0; i < segment.size(); i++) {
            assertEquals(PATTERN, segment.get(i), "round " + round + ": byte " + i + " of a segment that was free "
                    + "after the release was written afterwards");
        }
    }

    @Test
    void releaseFromAnotherThread_leavesOneBufferPerSubpartitionWithTheProducer_untilItsNextEmitReturnsThem()
            throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(4, 4).setUp();
        NetworkBufferPool global = fixture.globalPool();
        onProducerThread(() -> emitOneSmallRecordToEach(partition));

        partition.release(new IOException("cancelled by the test"));

        assertEquals(2, global.getNumberOfUsedMemorySegments(),
                "the two buffers under construction stay with the producer, the rest went back");
        ExecutionException error = assertThrows(ExecutionException.class,
                () -> onProducerThread(() -> partition.emitRecord(TestRecords.record(0, 1, 8), 0)));
        assertTrue(error.getCause() instanceof ShuffleException, String.valueOf(error.getCause()));
        assertTrue(error.getCause().getMessage().contains("cancelled by the test"), error.getCause().getMessage());
        MemoryAssertions.assertAllSegmentsReturned(global);
    }

    @Test
    void releaseFromAnotherThread_thenTheProducerClosesTheWriter_everySegmentComesBack() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(4, 4).setUp();
        NetworkBufferPool global = fixture.globalPool();
        onProducerThread(() -> emitOneSmallRecordToEach(partition));
        fixture.manager().releasePartitions(List.of(partition.partitionId()), null);
        partition.close(); // a close on a thread that is not the producer's leaves the builders alone
        assertEquals(2, global.getNumberOfUsedMemorySegments());

        onProducerThread(partition::close);

        MemoryAssertions.assertAllSegmentsReturned(global);
    }

    @Test
    void releaseOnTheProducersOwnThread_returnsItsBuffersAtOnce() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(4, 4).setUp();
        onProducerThread(() -> {
            emitOneSmallRecordToEach(partition);
            partition.fail(new IOException("the producer failed"));
        });

        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
    }
}
