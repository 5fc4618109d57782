package io.sluice.netty.partition.sortmerge;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The environment's read budget for blocking partitions, below the environment: every reader gets its fair share
 * (budget / readers) also when another reader's consumer stops reading, and a failure on the I/O thread fails the
 * reader it happened in with a {@link ShuffleException} instead of leaving every reader waiting.
 */
class BlockingReadSchedulerTest {

    private static final int SEGMENT = 4096;
    private static final int BUDGET = 4;
    private static final int RECORD_BYTES = 1000;
    /** Some 75 segments of records a partition, in regions of about 4 buffers: many times the budget. */
    private static final int RECORDS = 300;

    @TempDir
    Path tmp;

    private NetworkBufferPool networkPool;
    private ResultPartitionManager manager;
    private FileChannelManager files;

    @BeforeEach
    void setUp() {
        networkPool = new NetworkBufferPool(16, SEGMENT);
        manager = new ResultPartitionManager();
        files = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
    }

    @AfterEach
    void tearDown() {
        files.close();
        assertEquals(networkPool.getTotalNumberOfMemorySegments(), networkPool.getNumberOfAvailableMemorySegments(),
                "network segments back after the test");
        networkPool.destroy();
    }

    /**
     * A join sets up its probe side's gate and reads its build side first: the probe side's reader fills the whole
     * budget while it is alone, and its consumer takes nothing. The build side's reader, registered later, must
     * still get its share: the probe side's read-ahead beyond its share goes back (it is read again later).
     */
    @Test
    void aReaderWhoseConsumerTakesNothing_keepsOnlyItsShare_aLaterReaderReadsEverything() throws Exception {
        BlockingReadScheduler reads = new BlockingReadScheduler("fair", BUDGET, SEGMENT, new BufferCompressor());
        SortMergeResultPartition probe = finishedPartition(reads, 1);
        SortMergeResultPartition build = finishedPartition(reads, 2);
        ResultSubpartitionView probeView = reader(probe);
        Await.until(() -> reads.segmentsInUse() == BUDGET && reads.isIdle(), Await.EVENTUALLY,
                () -> "the probe side's reader holds the whole budget: " + reads.segmentsInUse());

        ResultSubpartitionView buildView = reader(build);

        assertEveryRecord(2, readToTheEnd(buildView), "the build side, read while the probe side's reader waits");
        buildView.releaseAllResources();
        assertEveryRecord(1, readToTheEnd(probeView), "the probe side, read afterwards");
        probeView.releaseAllResources();
        assertEquals(0, reads.segmentsInUse(), "read segments in use after both readers left");
        releaseAndClose(reads, probe, build);
    }

    /**
     * More readers than segments: five readers whose consumers take nothing hold or wait for the four segments. A
     * reader whose consumer waits still reads everything: read-ahead nobody takes goes back to the budget, and its
     * reader reads it again once its consumer gets to it.
     */
    @Test
    void moreReadersThanSegments_readersThatAreNotRead_doNotStopOneThatIs() throws Exception {
        BlockingReadScheduler reads = new BlockingReadScheduler("crowded", BUDGET, SEGMENT, new BufferCompressor());
        SortMergeResultPartition idle = finishedPartition(reads, 1);
        SortMergeResultPartition active = finishedPartition(reads, 2);
        List<ResultSubpartitionView> idleViews = new ArrayList<>();
        for (int i = 0; i < BUDGET + 1; i++) {
            idleViews.add(reader(idle));
        }
        Await.until(() -> reads.segmentsInUse() == BUDGET && reads.isIdle(), Await.EVENTUALLY,
                () -> "the idle readers hold the whole budget: " + reads.segmentsInUse());

        ResultSubpartitionView activeView = reader(active);

        assertEveryRecord(2, readToTheEnd(activeView), "the reader whose consumer reads");
        activeView.releaseAllResources();
        for (int i = 0; i < idleViews.size(); i++) {
            assertEveryRecord(1, readToTheEnd(idleViews.get(i)), "idle reader " + i + ", read afterwards");
            idleViews.get(i).releaseAllResources();
        }
        assertEquals(0, reads.segmentsInUse(), "read segments in use after the readers left");
        releaseAndClose(reads, idle, active);
    }

    /**
     * Every segment of the budget is with a consumer that took its buffers and stopped reading: nothing can be taken
     * back, so another reader, which holds nothing, waits at most the read-memory timeout and then fails naming the
     * read memory and the timeout, instead of waiting for ever. The stopped consumer reads everything afterwards.
     */
    @Test
    void everySegmentWithAConsumerThatStopped_anotherReaderFailsAfterTheTimeout_namingTheReadMemory()
            throws Exception {
        BlockingReadScheduler reads = new BlockingReadScheduler("held", BUDGET, SEGMENT, new BufferCompressor(),
                Duration.ofMillis(200), MemorySegment::allocateOffHeap);
        SortMergeResultPartition stopped = finishedPartition(reads, 1);
        SortMergeResultPartition waiting = finishedPartition(reads, 2);
        ResultSubpartitionView stoppedView = reader(stopped);
        List<Buffer> held = take(stoppedView, BUDGET);

        ResultSubpartitionView waitingView = reader(waiting);

        Await.until(waitingView::isReleased, "the waiting reader fails once the timeout has passed");
        ShuffleException failure = assertInstanceOf(ShuffleException.class, waitingView.getFailureCause());
        String message = failure.getMessage();
        assertTrue(message.contains(waiting.partitionId().toString()), message);
        assertTrue(message.contains("raise shuffle.blocking.read-memory, " + BUDGET + " segments of " + SEGMENT
                + " bytes"), message);
        assertTrue(message.contains("shuffle.blocking.read-memory-timeout (200 ms)"), message);
        waitingView.releaseAllResources();
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        for (Buffer buffer : held) {
            framed.writeBytes(TestRecords.bytesOf(buffer.getNioBufferReadable()));
            buffer.recycleBuffer();
        }
        framed.writeBytes(readToTheEnd(stoppedView));
        assertEveryRecord(1, framed.toByteArray(), "the reader whose consumer stopped, read on afterwards");
        stoppedView.releaseAllResources();
        releaseAndClose(reads, stopped, waiting);
    }

    /**
     * An Error thrown on the I/O thread inside a read (here from the allocation of the third read segment) fails
     * that reader with a ShuffleException naming the partition and carrying the Error; its read-ahead goes back;
     * and the thread goes on serving: a second reader of the same partition reads everything.
     */
    @Test
    void anErrorOnTheIoThread_failsItsReaderWithTheCause_returnsItsSegments_andLaterReadersAreServed()
            throws Exception {
        InternalError injected = new InternalError("injected failure of the blocking I/O thread");
        AtomicInteger allocations = new AtomicInteger();
        IntFunction<MemorySegment> failingThird = size -> {
            if (allocations.incrementAndGet() == 3) {
                throw injected;
            }
            return MemorySegment.allocateOffHeap(size);
        };
        BlockingReadScheduler reads = new BlockingReadScheduler("failing", BUDGET, SEGMENT, new BufferCompressor(),
                failingThird);
        SortMergeResultPartition partition = finishedPartition(reads, 1);

        ResultSubpartitionView failed = reader(partition);

        Await.until(failed::isReleased, "the reader fails");
        ShuffleException failure = assertInstanceOf(ShuffleException.class, failed.getFailureCause());
        assertSame(injected, failure.getCause(), "the cause");
        assertTrue(failure.getMessage().contains(partition.partitionId().toString()), failure.getMessage());
        assertTrue(failure.getMessage().contains("subpartition 0"), failure.getMessage());
        assertTrue(failure.getMessage().contains(injected.toString()), failure.getMessage());
        // The reader counts as failed as soon as it is marked so; its queued buffers go back right after.
        Await.until(() -> reads.segmentsInUse() == 0, Await.EVENTUALLY,
                () -> "the failed reader's read-ahead is back: " + reads.segmentsInUse() + " in use");
        failed.releaseAllResources();

        ResultSubpartitionView next = reader(partition);
        assertEveryRecord(1, readToTheEnd(next), "a reader after the failure");
        next.releaseAllResources();
        releaseAndClose(reads, partition);
    }

    /**
     * Direct memory that runs out after two read segments (the JVM's -XX:MaxDirectMemorySize reached by others):
     * the budget shrinks to the two segments it has, and the reader reads everything with them.
     */
    @Test
    void directMemoryRunningOutMidRead_shrinksTheBudgetToWhatItHas_andTheReadCompletes() throws Exception {
        BlockingReadScheduler reads = new BlockingReadScheduler("short", BUDGET, SEGMENT, new BufferCompressor(),
                directMemoryFor(2));
        SortMergeResultPartition partition = finishedPartition(reads, 1);

        ResultSubpartitionView view = reader(partition);

        assertEveryRecord(1, readToTheEnd(view), "the reader on two segments");
        view.releaseAllResources();
        assertEquals(2, reads.allocatedSegments(), "segments allocated");
        releaseAndClose(reads, partition);
    }

    /** Without any direct memory for even one read segment the reader fails, naming the option and the limit. */
    @Test
    void noDirectMemoryForASingleReadSegment_failsTheReader_namingTheReadMemoryAndTheJvmLimit() throws Exception {
        BlockingReadScheduler reads = new BlockingReadScheduler("none", BUDGET, SEGMENT, new BufferCompressor(),
                directMemoryFor(0));
        SortMergeResultPartition partition = finishedPartition(reads, 1);

        ResultSubpartitionView view = reader(partition);

        Await.until(view::isReleased, "the reader fails");
        ShuffleException failure = assertInstanceOf(ShuffleException.class, view.getFailureCause());
        assertInstanceOf(OutOfMemoryError.class, failure.getCause(), "the cause");
        assertTrue(failure.getMessage().contains("shuffle.blocking.read-memory"), failure.getMessage());
        assertTrue(failure.getMessage().contains("-XX:MaxDirectMemorySize"), failure.getMessage());
        assertTrue(failure.getMessage().contains(partition.partitionId().toString()), failure.getMessage());
        view.releaseAllResources();
        releaseAndClose(reads, partition);
    }

    /** Direct memory for {@code segments} read segments: the next allocation fails as ByteBuffer.allocateDirect does. */
    private static IntFunction<MemorySegment> directMemoryFor(int segments) {
        AtomicInteger left = new AtomicInteger(segments);
        return size -> {
            if (left.getAndDecrement() <= 0) {
                left.incrementAndGet();
                throw new OutOfMemoryError("Cannot reserve " + size + " bytes of direct buffer memory (injected)");
            }
            return MemorySegment.allocateOffHeap(size);
        };
    }

    /** A finished partition of one subpartition: {@link #RECORDS} records of stream {@code stream}. */
    private SortMergeResultPartition finishedPartition(BlockingReadScheduler reads, int stream) throws IOException {
        SortMergeResultPartition partition = new SortMergeResultPartition(ResultPartitionId.random(), "producer", 1,
                manager, (id, n) -> {
                    try {
                        return networkPool.createBufferPool(n + 3, n + 3);
                    } catch (IOException e) {
                        throw new InsufficientBuffersException(e.getMessage());
                    }
                }, files, reads, null, true);
        partition.setup();
        for (int i = 0; i < RECORDS; i++) {
            partition.emitRecord(TestRecords.record(stream, i, RECORD_BYTES), 0);
        }
        partition.finish();
        return partition;
    }

    /** A new reader of the partition's only subpartition, whose consumer this test is. */
    private ResultSubpartitionView reader(SortMergeResultPartition partition) throws IOException {
        return manager.createSubpartitionView(partition.partitionId(), 0, () -> { });
    }

    /** The framed stream of {@code view} up to its end of partition; fails when the reader fails or hangs. */
    private static byte[] readToTheEnd(ResultSubpartitionView view) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            BufferAndBacklog next = view.getNextBuffer();
            if (next == null) {
                if (view.isReleased()) {
                    throw new AssertionError("the reader failed", view.getFailureCause());
                }
                if (System.nanoTime() - deadline > 0) {
                    fail("the reader did not end; " + got.size() + " bytes read");
                }
                Thread.onSpinWait();
                continue;
            }
            Buffer buffer = next.buffer();
            try {
                if (!buffer.isBuffer() && EventSerializer.isEndOfPartition(buffer)) {
                    return got.toByteArray();
                }
                got.writeBytes(TestRecords.bytesOf(buffer.getNioBufferReadable()));
            } finally {
                buffer.recycleBuffer();
            }
        }
    }

    /** Takes {@code count} data buffers from {@code view}, as a consumer that keeps them does. */
    private static List<Buffer> take(ResultSubpartitionView view, int count) {
        List<Buffer> taken = new ArrayList<>();
        while (taken.size() < count) {
            Await.until(() -> view.isAvailable(1) || view.isReleased(), "a buffer to take");
            BufferAndBacklog next = view.getNextBuffer();
            if (next != null && next.buffer().isBuffer()) {
                taken.add(next.buffer());
            } else if (next != null) {
                fail("an event before " + count + " data buffers: " + next.buffer());
            }
        }
        return taken;
    }

    private static void assertEveryRecord(int stream, byte[] framed, String reader) {
        List<byte[]> records = TestRecords.decodeFramed(framed);
        assertEquals(RECORDS, records.size(), "records of " + reader);
        for (int i = 0; i < RECORDS; i++) {
            assertArrayEquals(TestRecords.recordBytes(stream, i, RECORD_BYTES), records.get(i),
                    "record " + i + " of " + reader);
        }
    }

    /** Releases the partitions, closes the scheduler, and checks that it freed every segment it allocated. */
    private static void releaseAndClose(BlockingReadScheduler reads, SortMergeResultPartition... partitions) {
        for (SortMergeResultPartition partition : partitions) {
            partition.release(null);
        }
        reads.close();
        assertEquals(0, reads.allocatedSegments(), "read segments not freed after close");
    }
}
