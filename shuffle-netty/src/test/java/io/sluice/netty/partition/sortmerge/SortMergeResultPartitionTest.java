package io.sluice.netty.partition.sortmerge;

import io.sluice.api.CorruptDataException;
import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.SharedFileChannel;
import io.sluice.netty.partition.StoredChecksum;
import io.sluice.netty.testing.RecordingInFlightSink;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.ResultSubpartitionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sort-merge partition and its readers, below the environment: file layout, read budget, failures. */
class SortMergeResultPartitionTest {

    private static final int SEGMENT = 4096;
    private static final int SUBPARTITIONS = 3;
    private static final int READ_BUDGET = 4;

    @TempDir
    Path tmp;

    /** A reader whose connection sends file bytes to its socket (as a TCP connection without TLS does). */
    private static final BufferAvailabilityListener ZERO_COPY_READER = new BufferAvailabilityListener() {
        @Override
        public void notifyDataAvailable() {
        }

        @Override
        public boolean acceptsFileSpans() {
            return true;
        }
    };

    private NetworkBufferPool networkPool;
    private ResultPartitionManager manager;
    private FileChannelManager files;
    private BlockingReadScheduler reads;

    @BeforeEach
    void setUp() {
        networkPool = new NetworkBufferPool(64, SEGMENT);
        manager = new ResultPartitionManager();
        files = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
        reads = new BlockingReadScheduler("test", READ_BUDGET, SEGMENT, new BufferCompressor());
    }

    @AfterEach
    void tearDown() {
        reads.close();
        files.close();
        assertEquals(networkPool.getTotalNumberOfMemorySegments(), networkPool.getNumberOfAvailableMemorySegments(),
                "network segments back after the test");
        networkPool.destroy();
    }

    private SortMergeResultPartition newPartition(BufferCompressor compressor) {
        return newPartition(compressor, reads, 1);
    }

    /** {@code extraBuffers}: the writing pool's buffers beyond one a subpartition (more make longer spans). */
    private SortMergeResultPartition newPartition(BufferCompressor compressor, BlockingReadScheduler scheduler,
                                                  int extraBuffers) {
        return newPartition(compressor, scheduler, extraBuffers, true);
    }

    /** {@code checksums}: whether each stored buffer carries its checksum. */
    private SortMergeResultPartition newPartition(BufferCompressor compressor, BlockingReadScheduler scheduler,
                                                  int extraBuffers, boolean checksums) {
        return new SortMergeResultPartition(ResultPartitionId.random(), "producer", SUBPARTITIONS, manager,
                (id, n) -> {
                    try {
                        return networkPool.createBufferPool(n + extraBuffers, n + extraBuffers);
                    } catch (IOException e) {
                        throw new InsufficientBuffersException(e.getMessage());
                    }
                }, files, scheduler, compressor, checksums);
    }

    /**
     * A set-up partition whose pool holds at least a buffer per subpartition plus one and grows to 60 of the 64
     * segments while there is room, over a new network pool whose exclusive requests give up after
     * {@code requestTimeout}.
     */
    private SortMergeResultPartition setUpGrowingPartition(Duration requestTimeout) throws IOException {
        networkPool.destroy();
        networkPool = new NetworkBufferPool(64, SEGMENT, requestTimeout);
        SortMergeResultPartition partition = new SortMergeResultPartition(ResultPartitionId.random(), "producer",
                SUBPARTITIONS, manager,
                (id, n) -> {
                    try {
                        return networkPool.createBufferPool(n + 1, 60);
                    } catch (IOException e) {
                        throw new InsufficientBuffersException(e.getMessage());
                    }
                }, files, reads, null, true);
        partition.setup();
        return partition;
    }

    /** Records of 1,000 bytes to the subpartitions in turn, numbered from {@code first}; also into {@code expected}. */
    private static void writeNumberedRecords(SortMergeResultPartition partition, int first, int count,
                                             ByteArrayOutputStream[] expected) throws IOException {
        for (int i = first; i < first + count; i++) {
            byte[] record = new byte[1000];
            Arrays.fill(record, (byte) i);
            int target = i % SUBPARTITIONS;
            partition.emitRecord(ByteBuffer.wrap(record), target);
            byte[] framed = ByteBuffer.allocate(4 + record.length).putInt(record.length).put(record).array();
            expected[target].writeBytes(framed);
        }
    }

    private static ByteArrayOutputStream[] emptyStreams() {
        ByteArrayOutputStream[] streams = new ByteArrayOutputStream[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            streams[s] = new ByteArrayOutputStream();
        }
        return streams;
    }

    private void assertEverySubpartitionReads(SortMergeResultPartition partition, ByteArrayOutputStream[] expected)
            throws IOException {
        for (int s = 0; s < SUBPARTITIONS; s++) {
            ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), s, () -> { });
            assertArrayEquals(expected[s].toByteArray(), readToTheEnd(view), "subpartition " + s);
            view.releaseAllResources();
        }
    }

    /**
     * The writing pool destroyed between an emit's state check and its buffer request (the environment closing on
     * another thread): the emit fails with a {@link ShuffleException}, never with the pool's own unchecked exception.
     */
    @Test
    void poolDestroyedUnderAnEmit_failsItWithShuffleException_notThePoolsException() throws Exception {
        LocalBufferPool[] pool = new LocalBufferPool[1];
        SortMergeResultPartition partition = new SortMergeResultPartition(ResultPartitionId.random(), "producer",
                SUBPARTITIONS, manager,
                (id, n) -> {
                    try {
                        pool[0] = networkPool.createBufferPool(n + 1, n + 1);
                        return pool[0];
                    } catch (IOException e) {
                        throw new InsufficientBuffersException(e.getMessage());
                    }
                }, files, reads, null, true);
        partition.setup();
        pool[0].lazyDestroy();

        ShuffleException refused = assertThrows(ShuffleException.class,
                () -> partition.emitRecord(ByteBuffer.wrap(new byte[100]), 0));
        assertTrue(refused.getMessage().contains(partition.partitionId().toString()), refused.getMessage());
        partition.release(null);
    }

    /**
     * A writer that filled most of the environment's memory and went idle (no emit, no finish) holds its region in
     * memory. A request for exclusive segments that only that memory can serve lowers the pool's quota; the
     * partition then writes its region on the requesting thread, so the request is served at once instead of
     * timing out (before the over-quota listener it waited the pool's 5 s and failed).
     */
    @Test
    void anIdleWritersRegion_isWrittenEarly_whenAnotherRequestNeedsItsMemory() throws Exception {
        SortMergeResultPartition partition = setUpGrowingPartition(Duration.ofSeconds(5));
        ByteArrayOutputStream[] expected = emptyStreams();
        writeNumberedRecords(partition, 0, 190, expected); // about 47 segments of 4 KiB, all in the open region
        assertTrue(networkPool.getNumberOfAvailableMemorySegments() < 20,
                "free segments while the region is open: " + networkPool.getNumberOfAvailableMemorySegments());

        List<MemorySegment> exclusive = networkPool.requestUnpooledMemorySegments(40);
        assertEquals(40, exclusive.size());
        networkPool.recycleUnpooledMemorySegments(exclusive);

        writeNumberedRecords(partition, 190, 100, expected);
        partition.finish();
        assertEquals(2, partition.regions(), "the region written early and the last one");
        assertEverySubpartitionReads(partition, expected);
        partition.release(null);
    }

    /**
     * The same while the writer is busy: requests come while it holds the emit lock, and either the request's
     * thread or the emit in progress writes the region. Every request is served, every byte arrives in order.
     */
    @Test
    void requestsWhileTheWriterEmits_areServedByTheEmitInProgress_andNoRecordIsLost() throws Exception {
        SortMergeResultPartition partition = setUpGrowingPartition(Duration.ofSeconds(10));
        ByteArrayOutputStream[] expected = emptyStreams();
        BackgroundTask<Void> writer = BackgroundTask.start("busy-writer",
                () -> writeNumberedRecords(partition, 0, 20_000, expected));
        int served = 0;
        while (!writer.result().isDone()) {
            List<MemorySegment> exclusive = networkPool.requestUnpooledMemorySegments(40);
            served += exclusive.size();
            networkPool.recycleUnpooledMemorySegments(exclusive);
        }
        writer.await();
        assertTrue(served > 0, "no request was made while the writer ran");
        partition.finish();
        assertEverySubpartitionReads(partition, expected);
        partition.release(null);
    }

    @Test
    void manyRegionsAndBroadcasts_eachSubpartitionReadsItsOwnStreamInOrder_eightReadersWithinAFourSegmentBudget()
            throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        ByteArrayOutputStream[] expected = writeMixedTraffic(partition);
        partition.finish();
        assertTrue(partition.regions() > 10, "regions written: " + partition.regions());
        assertEquals(networkPool.getTotalNumberOfMemorySegments(), networkPool.getNumberOfAvailableMemorySegments(),
                "writing memory returned at finish");

        // Eight readers at once (every subpartition, some twice), consumed round-robin by this thread.
        int[] subpartitionOf = {0, 1, 2, 0, 1, 2, 0, 1};
        List<ResultSubpartitionView> views = new ArrayList<>();
        ByteArrayOutputStream[] got = new ByteArrayOutputStream[subpartitionOf.length];
        for (int i = 0; i < subpartitionOf.length; i++) {
            views.add(manager.createSubpartitionView(partition.partitionId(), subpartitionOf[i], () -> { }));
            got[i] = new ByteArrayOutputStream();
        }
        boolean[] ended = new boolean[views.size()];
        int endedCount = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int maxInUse = 0;
        while (endedCount < views.size()) {
            assertTrue(System.nanoTime() < deadline, "readers ended: " + endedCount);
            for (int i = 0; i < views.size(); i++) {
                BufferAndBacklog next = ended[i] ? null : views.get(i).getNextBuffer();
                maxInUse = Math.max(maxInUse, reads.segmentsInUse());
                if (next == null) {
                    continue;
                }
                Buffer buffer = next.buffer();
                if (buffer.isBuffer()) {
                    ByteBuffer bytes = buffer.getNioBufferReadable();
                    byte[] copy = new byte[bytes.remaining()];
                    bytes.get(copy);
                    got[i].write(copy);
                } else if (EventSerializer.isEndOfPartition(buffer)) {
                    ended[i] = true;
                    endedCount++;
                } else {
                    got[i].write(bytesOf(EventSerializer.payloadOf(buffer)));
                }
                buffer.recycleBuffer();
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < views.size(); i++) {
            assertArrayEquals(expected[subpartitionOf[i]].toByteArray(), got[i].toByteArray(),
                    "stream of reader " + i + " (subpartition " + subpartitionOf[i] + ")");
            views.get(i).releaseAllResources();
        }
        assertTrue(maxInUse <= READ_BUDGET, "read segments in use at most " + maxInUse);
        assertTrue(reads.allocatedSegments() <= READ_BUDGET, "allocated " + reads.allocatedSegments());
        assertEquals(0, reads.segmentsInUse(), "read segments in use after the readers left");

        partition.release(null);
        assertFalse(Files.exists(partition.dataPath()), "data file after release");
        assertFalse(Files.exists(partition.indexPath()), "index file after release");
    }

    @Test
    void compressedOnDisk_readsBackTheSameBytes() throws Exception {
        SortMergeResultPartition partition = newPartition(new BufferCompressor());
        partition.setup();
        ByteArrayOutputStream[] expected = writeMixedTraffic(partition);
        partition.finish();
        long rawBytes = Arrays.stream(expected).mapToLong(ByteArrayOutputStream::size).sum();
        assertTrue(Files.size(partition.dataPath()) < rawBytes / 2, "compressed data file of "
                + Files.size(partition.dataPath()) + " bytes for " + rawBytes);

        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 2, () -> { });
        byte[] got = readToTheEnd(view);
        assertArrayEquals(expected[2].toByteArray(), got);
        view.releaseAllResources();
        partition.release(null);
    }

    @Test
    void trackedBlockingEvent_isStoredInOrderAndToldSentForEverySubpartitionOnTheCallersThread() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        partition.emitRecord(ByteBuffer.wrap(new byte[] {1, 2, 3}), 1);
        List<String> told = new ArrayList<>();
        Thread caller = Thread.currentThread();

        partition.broadcastAnnouncedBlockingEvent(ByteBuffer.wrap("barrier".getBytes(StandardCharsets.UTF_8)),
                (subpartition, outcome) -> told.add(subpartition + ":" + outcome
                        + (Thread.currentThread() == caller ? "" : "@other")));
        partition.emitRecord(ByteBuffer.wrap(new byte[] {4}), 1);
        partition.finish();

        assertEquals(List.of("0:SENT", "1:SENT", "2:SENT"), told);
        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 1, () -> { });
        List<String> elements = new ArrayList<>();
        readToTheEnd(view, () -> { }, elements);
        assertEquals(List.of("data 7", "event barrier", "data 5"), elements, "in order; nothing blocks its reader");
        view.releaseAllResources();
        partition.release(null);
    }

    /**
     * Data in flight for checkpoints (docs/contract.md section 11) in a blocking partition: events keep their order, so
     * a priority event overtakes nothing and no queued event can be made a priority one; recovered data and events
     * are stored for their subpartition only, in order, the data in buffers of its own (also when compressed on disk).
     */
    @Test
    void inFlightData_overtakesNothing_andRecoveredDataAndEventsAreStoredInOrderForTheirSubpartitionOnly()
            throws Exception {
        SortMergeResultPartition partition = newPartition(new BufferCompressor());
        partition.setup();
        ByteArrayOutputStream[] expected = emptyStreams();
        writeNumberedRecords(partition, 0, SUBPARTITIONS, expected);
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        partition.broadcastPriorityEvent(ByteBuffer.wrap("barrier".getBytes(StandardCharsets.UTF_8)), sink);
        for (ByteArrayOutputStream stream : expected) {
            stream.writeBytes("barrier".getBytes(StandardCharsets.UTF_8)); // read in order, where it was sent
        }
        assertEquals(0, partition.prioritizeQueuedEvent(payload -> {
            throw new AssertionError("a blocking partition has no queued event to match");
        }, sink));
        byte[] recovered = new byte[SEGMENT + 100];
        Arrays.fill(recovered, (byte) 0x5a);
        partition.emitRecovered(1, ByteBuffer.wrap(recovered), false);
        expected[1].writeBytes(recovered);
        partition.emitRecovered(1, ByteBuffer.wrap("recovered".getBytes(StandardCharsets.UTF_8)), true);
        expected[1].writeBytes("recovered".getBytes(StandardCharsets.UTF_8));
        writeNumberedRecords(partition, SUBPARTITIONS, SUBPARTITIONS, expected);
        partition.finish();

        assertEquals(0, sink.buffers(), "nothing overtaken");
        for (int s = 0; s < SUBPARTITIONS; s++) {
            ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), s, () -> { });
            List<String> elements = new ArrayList<>();
            byte[] got = readToTheEnd(view, () -> { }, elements);
            view.releaseAllResources();
            assertArrayEquals(expected[s].toByteArray(), got, "subpartition " + s);
            assertEquals(s == 1
                    ? List.of("data 1004", "event barrier", "data 4096", "data 100", "event recovered", "data 1004")
                    : List.of("data 1004", "event barrier", "data 1004"), elements, "subpartition " + s);
        }
        partition.release(null);
    }

    @Test
    void aWideBudget_readsRunsOfStoredBuffersInOneScatterRead_andStopsAtTheFirstBufferNotAsGuessed()
            throws Exception {
        // 48 segments for one reader at a time and a writing pool of 48 buffers (regions of about 16 buffers a
        // subpartition): runs of many buffers. With lz4, a span mixes compressed buffers (constant records) with
        // buffers stored as they are (random records), so runs end early at the first compressed one; without, only
        // each span's short last buffer ends a run.
        try (BlockingReadScheduler wide = new BlockingReadScheduler("wide", 48, SEGMENT, new BufferCompressor())) {
            for (BufferCompressor compressor : new BufferCompressor[] {null, new BufferCompressor()}) {
                SortMergeResultPartition partition = newPartition(compressor, wide, 48 - SUBPARTITIONS);
                partition.setup();
                ByteArrayOutputStream[] expected = writeBurstsOfRandomAndConstantRecords(partition);
                partition.finish();
                for (int s = 0; s < SUBPARTITIONS; s++) {
                    SortMergeSubpartitionView view = (SortMergeSubpartitionView) manager.createSubpartitionView(
                            partition.partitionId(), s, () -> { });
                    // After each buffer the consumer waits until the read thread has done what it was asked: what
                    // is read, and in how many scatter reads, then depends on the reader's rules, not on how the two
                    // threads happened to share the CPUs (inside mvn -B verify on two vCPUs a free-running consumer
                    // saw 1.7-3.6 buffers per scatter read, 7 alone).
                    assertArrayEquals(expected[s].toByteArray(), readToTheEnd(view, () -> awaitIdle(wide)),
                            "subpartition " + s + (compressor == null ? "" : ", lz4"));
                    // Without lz4 a run ends with its span (16 buffers or so); with it, at the next compressed one.
                    // Reading buffer by buffer gives 1 buffer per scatter read, which fails this.
                    long buffersPerRead = compressor == null ? 2 : 1;
                    assertTrue(view.scatterReads() < view.buffersReadInRuns() / buffersPerRead, view.scatterReads()
                            + " scatter reads for " + view.buffersReadInRuns() + " buffers" + (compressor == null
                            ? "" : ", lz4"));
                    view.releaseAllResources();
                }
                assertEquals(0, wide.segmentsInUse(), "read segments in use after the readers left");
                partition.release(null);
            }
        }
    }

    /** Reads {@code view} until its end of partition; returns the records' bytes and the events' payloads. */
    private static byte[] readToTheEnd(ResultSubpartitionView view) throws IOException {
        return readToTheEnd(view, () -> { });
    }

    /**
     * {@link #readToTheEnd(ResultSubpartitionView)}, running {@code afterEachBuffer} after recycling each one; checks
     * that the end of partition counts the data buffers and bytes that came before it.
     */
    private static byte[] readToTheEnd(ResultSubpartitionView view, Runnable afterEachBuffer) throws IOException {
        return readToTheEnd(view, afterEachBuffer, null);
    }

    /**
     * {@link #readToTheEnd(ResultSubpartitionView, Runnable)}, also adding to {@code elements} (when not null)
     * "data SIZE" for each data buffer and "event PAYLOAD" for each event.
     */
    private static byte[] readToTheEnd(ResultSubpartitionView view, Runnable afterEachBuffer, List<String> elements)
            throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long dataBuffers = 0;
        long dataBytes = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            assertTrue(System.nanoTime() < deadline, "reader did not end");
            assertFalse(view.isReleased(), () -> "the reader failed: " + view.getFailureCause());
            BufferAndBacklog next = view.getNextBuffer();
            if (next == null) {
                Thread.onSpinWait();
                continue;
            }
            Buffer buffer = next.buffer();
            boolean end = !buffer.isBuffer() && EventSerializer.isEndOfPartition(buffer);
            if (buffer.isBuffer()) {
                dataBuffers++;
                dataBytes += buffer.readableBytes();
                got.write(bytesOf(buffer.getNioBufferReadable()));
                if (elements != null) {
                    elements.add("data " + buffer.readableBytes());
                }
            } else if (!end) {
                got.write(bytesOf(EventSerializer.payloadOf(buffer)));
                if (elements != null) {
                    elements.add("event " + StandardCharsets.UTF_8.decode(EventSerializer.payloadOf(buffer)));
                }
            } else {
                assertEquals(dataBytes, EventSerializer.dataBytesOf(buffer), "data bytes the end counts");
                assertEquals(dataBuffers, EventSerializer.dataBuffersOf(buffer), "data buffers the end counts");
            }
            buffer.recycleBuffer();
            if (end) {
                return got.toByteArray();
            }
            afterEachBuffer.run();
        }
    }

    /** Waits until {@code scheduler}'s thread has served every wake-up so far. */
    private static void awaitIdle(BlockingReadScheduler scheduler) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!scheduler.isIdle()) {
            assertTrue(System.nanoTime() < deadline, "the read thread did not settle");
            Thread.onSpinWait();
        }
    }

    /**
     * Bursts of twenty records of up to two segments each, random bytes (incompressible) and constant bytes in turn,
     * to random subpartitions, with a broadcast event now and then; returns each subpartition's expected stream.
     */
    private static ByteArrayOutputStream[] writeBurstsOfRandomAndConstantRecords(SortMergeResultPartition partition)
            throws IOException {
        ByteArrayOutputStream[] expected = new ByteArrayOutputStream[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            expected[s] = new ByteArrayOutputStream();
        }
        long random = 7;
        for (int i = 0; i < 2000; i++) {
            random = random * 6364136223846793005L + 1442695040888963407L;
            int size = (int) ((random >>> 33) % (2 * SEGMENT));
            byte[] record = new byte[size];
            boolean incompressible = (i / 20) % 2 == 0;
            long bytes = random;
            for (int b = 0; b < size; b++) {
                bytes = bytes * 6364136223846793005L + 1442695040888963407L;
                record[b] = incompressible ? (byte) (bytes >>> 56) : (byte) i;
            }
            if (i % 333 == 0) {
                byte[] event = {(byte) i, 9};
                partition.broadcastEvent(ByteBuffer.wrap(event), false);
                for (ByteArrayOutputStream stream : expected) {
                    stream.writeBytes(event);
                }
            }
            int target = (int) ((random >>> 20) % SUBPARTITIONS);
            partition.emitRecord(ByteBuffer.wrap(record), target);
            expected[target].writeBytes(ByteBuffer.allocate(4 + size).putInt(size).put(record).array());
        }
        return expected;
    }

    @Test
    void fileSpans_pointAtTheStoredBytes_shareTheReadersOneHandle_andTakeNoReadMemory() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        ByteArrayOutputStream[] expected = writeMixedTraffic(partition);
        partition.finish();
        long handlesBefore = openHandlesOf(partition);
        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 1, ZERO_COPY_READER);

        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int spans = 0;
        int buffersInSpans = 0;
        int longestRun = 0;
        int nextSequenceNumber = 0;
        SharedFileChannel handle = null;
        FileSpan lastSpan = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            assertTrue(System.nanoTime() < deadline, "reader did not end");
            FileSpan span = view.pollFileSpan(MAX_RUN);
            if (span != null) {
                if (handle == null) {
                    handle = span.file();
                }
                assertSame(handle, span.file(), "every span of a reader reads through its one open handle");
                assertTrue(span.buffers() >= 1 && span.buffers() <= MAX_RUN, "buffers of " + span);
                assertEquals(nextSequenceNumber, span.firstSequenceNumber(), "sequence numbers run on: " + span);
                nextSequenceNumber += span.buffers();
                ByteBuffer stored = ByteBuffer.allocate(Math.toIntExact(span.length()));
                span.file().channel().read(stored, span.position());
                assertEquals(span.dataBytes(), appendStoredBuffers(stored.flip(), span.position(), span.buffers(),
                        got), "data bytes of " + span);
                spans++;
                buffersInSpans += span.buffers();
                longestRun = Math.max(longestRun, span.buffers());
                if (lastSpan != null) {
                    lastSpan.file().release(); // as the sender does once a span is written
                }
                lastSpan = span;
                continue;
            }
            BufferAndBacklog next = view.getNextBuffer();
            if (next == null) {
                Thread.onSpinWait();
                continue;
            }
            Buffer buffer = next.buffer();
            assertFalse(buffer.isBuffer(), "data comes as file spans, not buffers");
            assertEquals(nextSequenceNumber++, next.sequenceNumber(), "sequence number of an event");
            boolean end = EventSerializer.isEndOfPartition(buffer);
            if (!end) {
                got.write(bytesOf(EventSerializer.payloadOf(buffer)));
            }
            buffer.recycleBuffer();
            if (end) {
                break;
            }
        }
        assertArrayEquals(expected[1].toByteArray(), got.toByteArray());
        assertTrue(buffersInSpans > 10, "buffers in spans: " + buffersInSpans);
        assertEquals(MAX_RUN, longestRun, "buffers back to back in a region leave as one run, up to the limit");
        assertTrue(spans < buffersInSpans, spans + " spans for " + buffersInSpans + " buffers");
        assertEquals(0, reads.allocatedSegments(), "read memory allocated for a zero-copy reader");
        assertEquals(handlesBefore + 2, openHandlesOf(partition), "a reader holds one data and one index handle");

        view.releaseAllResources();
        assertTrue(handle.isOpen(), "a span still being sent keeps the handle open after its reader is released");
        lastSpan.file().release();
        assertFalse(handle.isOpen(), "the last span's release closes the handle");
        assertEquals(handlesBefore, openHandlesOf(partition), "open handles of the partition's files after release");
        partition.release(null);
    }

    /** The most buffers a span may hold in the test above: small, so that runs are cut by it too. */
    private static final int MAX_RUN = 2;

    /**
     * Appends the data of {@code buffers} stored buffers (header, then data; see FileSpan) read from {@code position}
     * of the data file to {@code out}, checking that they fill {@code stored} exactly and carry their checksums.
     *
     * @return the data bytes appended
     */
    private static long appendStoredBuffers(ByteBuffer stored, long position, int buffers,
                                            ByteArrayOutputStream out) {
        long data = 0;
        StoredChecksum checksum = new StoredChecksum();
        for (int i = 0; i < buffers; i++) {
            int header = stored.position();
            long headerWord = stored.getLong(header);
            int length = stored.getInt();
            assertEquals(FileSpan.KIND_DATA, stored.get(), "kind of stored buffer " + i);
            assertEquals(FileSpan.FLAG_CHECKSUM, stored.get(), "flags of stored buffer " + i);
            assertEquals(0, stored.getShort(), "reserved bytes of stored buffer " + i);
            int crc = stored.getInt();
            ByteBuffer bytes = stored.slice(stored.position(), length);
            assertEquals(checksum.ofBuffer(position + header, headerWord, bytes), crc, "checksum of buffer " + i);
            out.write(stored.array(), stored.arrayOffset() + stored.position(), length);
            stored.position(stored.position() + length);
            data += length;
        }
        assertFalse(stored.hasRemaining(), "bytes after the last stored buffer");
        return data;
    }

    /** A partition written without buffer checksums says so in its index, stores none, and reads back the same. */
    @Test
    void withoutBufferChecksums_readsBackTheSameBytes_everyWay() throws Exception {
        for (BufferCompressor compressor : new BufferCompressor[] {null, new BufferCompressor()}) {
            SortMergeResultPartition partition = newPartition(compressor, reads, 1, false);
            partition.setup();
            ByteArrayOutputStream[] expected = writeMixedTraffic(partition);
            partition.finish();
            assertEquals(0, readBytes(partition.indexPath(), 12, 4).getInt(), "index flags: no buffer checksums");
            assertEquals(0, readBytes(partition.dataPath(), 5, 1).get() & FileSpan.FLAG_CHECKSUM,
                    "flags of the first stored buffer");
            assertEverySubpartitionReads(partition, expected);
            partition.release(null);
        }
    }

    /**
     * An index of the format before checksums (version 1) is refused with a message that says so, before anything is
     * read: whatever its entries say, the reader could not check them.
     */
    @Test
    void indexOfAnotherFormatVersion_isRefused_namingTheVersionTheFileAndTheOffset() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        writeMixedTraffic(partition);
        partition.finish();
        overwrite(partition.indexPath(), 4, ByteBuffer.allocate(4).putInt(1).flip());

        CorruptDataException failure = failureOfReading(partition, 1);

        assertEquals("subpartition 1 of blocking partition " + partition.partitionId() + " is damaged at offset 4 of "
                + partition.indexPath() + ": the index has format version 1, and this Sluice reads version 2 only"
                + " (version 1 had no checksums): it was written by another Sluice version, or damaged; the"
                + " partition must be produced again", failure.getMessage());
        partition.release(null);
    }

    /**
     * An index whose records all pass their checksums but whose totals disagree with the regions (written so, or
     * damaged together with a matching checksum) fails the reader at the end instead of ending it: the end of
     * partition would carry counts the consumer could not meet.
     */
    @Test
    void totalsThatDisagreeWithTheRegions_failTheReaderAtTheEnd_namingBothCounts() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        writeMixedTraffic(partition);
        partition.finish();
        long totalsAt = PartitionFiles.totalsPosition(partition.regions(), SUBPARTITIONS, 2);
        ByteBuffer totals = readBytes(partition.indexPath(), totalsAt, PartitionFiles.TOTALS_BYTES);
        long buffers = totals.getLong(0);
        long bytes = totals.getLong(8);
        ByteBuffer forged = ByteBuffer.allocate(PartitionFiles.TOTALS_BYTES).putLong(buffers).putLong(bytes + 1);
        forged.putInt(new StoredChecksum().ofRecord(totalsAt, forged.duplicate().flip())).flip();
        overwrite(partition.indexPath(), totalsAt, forged);

        CorruptDataException failure = failureOfReading(partition, 2);

        assertTrue(failure.getMessage().contains("damaged at offset " + totalsAt + " of " + partition.indexPath()
                + ": the subpartition's totals say " + buffers + " data buffers of " + (bytes + 1) + " bytes, but its"
                + " regions held " + buffers + " of " + bytes + " bytes"), failure.getMessage());
        partition.release(null);
    }

    /**
     * Reads {@code subpartition} of {@code partition} until its reader fails; no end of partition may come first.
     * Every buffer read before is recycled.
     */
    private CorruptDataException failureOfReading(SortMergeResultPartition partition, int subpartition)
            throws IOException {
        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), subpartition, () -> { });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!view.isReleased()) {
            assertTrue(System.nanoTime() < deadline, "the reader neither failed nor ended");
            BufferAndBacklog next = view.getNextBuffer();
            if (next == null) {
                Thread.onSpinWait();
                continue;
            }
            assertFalse(EventSerializer.isEndOfPartition(next.buffer()), "the reader ended instead of failing");
            next.buffer().recycleBuffer();
        }
        Throwable cause = view.getFailureCause();
        view.releaseAllResources();
        Await.until(() -> reads.segmentsInUse() == 0, "read segments back after the failed reader");
        return (CorruptDataException) cause;
    }

    private static ByteBuffer readBytes(Path file, long position, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bytes = ByteBuffer.allocate(length);
            while (bytes.hasRemaining()) {
                assertTrue(channel.read(bytes, position + bytes.position()) > 0, "end of " + file);
            }
            return bytes.flip();
        }
    }

    private static void overwrite(Path file, long position, ByteBuffer bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes, position + bytes.position());
            }
        }
    }

    @Test
    void manyReadersOneAfterAnother_leaveNoOpenFileHandles() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        writeMixedTraffic(partition);
        partition.finish();
        long before = openHandlesOf(partition);
        for (int round = 0; round < 50; round++) {
            ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), round % 3,
                    round % 2 == 0 ? ZERO_COPY_READER : () -> { });
            // Take a few elements (spans are released as a sender would), then let go in the middle of the data.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int taken = 0; taken < 5; ) {
                assertTrue(System.nanoTime() < deadline, "reader " + round + " made no progress");
                FileSpan span = view.pollFileSpan(2);
                if (span != null) {
                    span.file().release();
                    taken += span.buffers();
                    continue;
                }
                BufferAndBacklog next = view.getNextBuffer();
                if (next != null) {
                    next.buffer().recycleBuffer();
                    taken++;
                }
            }
            view.releaseAllResources();
        }
        assertEquals(before, openHandlesOf(partition), "open handles of the partition's files after 50 readers");
        Await.until(() -> reads.segmentsInUse() == 0, "read segments back after the readers left");
        partition.release(null);
    }

    /**
     * Memory does not grow with the data: writing ten times the regions takes no more direct memory than writing the
     * first ones (the index goes to its file region by region, nothing per region stays in memory), the writer's
     * memory is its pool's, and reading all of it back stays within the read budget.
     */
    @Test
    void tenTimesTheRegions_takeNoMoreMemory_writingOrReading() throws Exception {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        byte[] record = new byte[SEGMENT / 3];
        int perRegion = 4 * SEGMENT / record.length; // the pool holds 4 buffers: a region every ~4 buffers
        for (int i = 0; i < 20 * perRegion; i++) {
            partition.emitRecord(ByteBuffer.wrap(record), i % SUBPARTITIONS);
        }
        long afterFirstRegions = direct.getMemoryUsed();
        for (int i = 0; i < 200 * perRegion; i++) {
            partition.emitRecord(ByteBuffer.wrap(record), i % SUBPARTITIONS);
        }
        long afterTenTimesMore = direct.getMemoryUsed();
        partition.finish();
        assertTrue(partition.regions() > 200, "regions written: " + partition.regions());
        assertTrue(afterTenTimesMore - afterFirstRegions < (256 << 10), "direct memory grew by "
                + (afterTenTimesMore - afterFirstRegions) + " bytes while ten times the regions were written");
        assertEquals(networkPool.getTotalNumberOfMemorySegments(), networkPool.getNumberOfAvailableMemorySegments(),
                "writing memory returned at finish");

        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 0, () -> { });
        long bytes = 0;
        int maxInUse = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            assertTrue(System.nanoTime() < deadline, "reader did not end");
            BufferAndBacklog next = view.getNextBuffer();
            maxInUse = Math.max(maxInUse, reads.segmentsInUse());
            if (next == null) {
                Thread.onSpinWait();
                continue;
            }
            boolean end = EventSerializer.isEndOfPartition(next.buffer());
            bytes += next.buffer().isBuffer() ? next.buffer().getSize() : 0;
            next.buffer().recycleBuffer();
            if (end) {
                break;
            }
        }
        assertEquals(partition.bytesOut() / SUBPARTITIONS, bytes, 4 + record.length, "bytes of subpartition 0");
        assertTrue(maxInUse <= READ_BUDGET, "read segments in use at most " + maxInUse + " of " + READ_BUDGET);
        view.releaseAllResources();
        partition.release(null);
    }

    /** Open file descriptors of this process on the partition's data or index file (Linux /proc). */
    private static long openHandlesOf(SortMergeResultPartition partition) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd to count open files");
        long open = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.equals(partition.dataPath()) || target.equals(partition.indexPath())) {
                        open++;
                    }
                } catch (IOException e) {
                    // closed between listing and reading: not open
                }
            }
        }
        return open;
    }

    @Test
    void readerBeforeFinish_isToldNotFound_andAfterTheFilesAreGone_too() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        partition.emitRecord(ByteBuffer.wrap(new byte[100]), 0);
        assertThrows(PartitionNotFoundException.class,
                () -> manager.createSubpartitionView(partition.partitionId(), 0, () -> { }));
        partition.finish();
        Files.delete(partition.dataPath());

        assertThrows(PartitionNotFoundException.class,
                () -> manager.createSubpartitionView(partition.partitionId(), 0, () -> { }));
        partition.release(null);
        assertThrows(ShuffleException.class, () -> partition.emitRecord(ByteBuffer.allocate(1), 0));
    }

    @Test
    void releaseWhileAReaderHoldsTheFiles_failsIt_filesGoWithTheReader() throws Exception {
        SortMergeResultPartition partition = newPartition(null);
        partition.setup();
        writeMixedTraffic(partition);
        partition.finish();
        ResultSubpartitionView view = manager.createSubpartitionView(partition.partitionId(), 0, () -> { });

        partition.release(null);

        assertTrue(view.isReleased(), "the reader is released with its partition");
        assertTrue(view.getFailureCause().getMessage().contains("released while it was being read"),
                String.valueOf(view.getFailureCause()));
        assertTrue(Files.exists(partition.dataPath()), "files stay while a reader has them");
        view.releaseAllResources();
        assertFalse(Files.exists(partition.dataPath()), "files go with the last reader");
    }

    private static byte[] bytesOf(ByteBuffer bytes) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        return copy;
    }

    /**
     * Records of many sizes to every subpartition, with broadcast records and events between them; returns what each
     * subpartition's stream must hold (length-prefixed records, and the payload of each event in its place).
     */
    private static ByteArrayOutputStream[] writeMixedTraffic(SortMergeResultPartition partition) throws IOException {
        ByteArrayOutputStream[] expected = new ByteArrayOutputStream[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            expected[s] = new ByteArrayOutputStream();
        }
        long random = 42;
        for (int i = 0; i < 3000; i++) {
            random = random * 6364136223846793005L + 1442695040888963407L;
            int size = (int) ((random >>> 33) % (i % 50 == 0 ? 3 * SEGMENT : 300));
            byte[] record = new byte[size];
            for (int b = 0; b < size; b++) {
                record[b] = (byte) (i % 7 == 0 ? b ^ i : i);
            }
            byte[] framed = ByteBuffer.allocate(4 + size).putInt(size).put(record).array();
            if (i % 97 == 0) {
                partition.broadcastRecord(ByteBuffer.wrap(record));
                for (ByteArrayOutputStream stream : expected) {
                    stream.writeBytes(framed);
                }
            } else if (i % 251 == 0) {
                byte[] event = {(byte) i, 1, 2};
                partition.broadcastEvent(ByteBuffer.wrap(event), false);
                for (ByteArrayOutputStream stream : expected) {
                    stream.writeBytes(event);
                }
            } else {
                int target = (int) ((random >>> 20) % SUBPARTITIONS);
                partition.emitRecord(ByteBuffer.wrap(record), target);
                expected[target].writeBytes(framed);
            }
        }
        return expected;
    }
}
