package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.netty.testing.PartitionBuilder;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.TestRecords;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The flush interval as a deadline per byte (docs/behaviours.md RP-10; docs/contract.md: data waits at most the flush
 * interval in a partly filled buffer): a subpartition is flushed when its oldest unsent byte has waited the interval less one tick, not
 * at every tick, so a buffer that fills in time goes whole. The partition's clock and the ticks are driven by hand
 * ({@link PeriodicFlusher#flushDue}); the partition's own flusher is left at {@link PartitionBuilder#NO_AUTOMATIC_FLUSH}.
 */
class PeriodicFlusherTest {

    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A tenth of the interval. */
    private static final long TICK = 10 * MS;
    /** The interval less one tick: how long the oldest byte waits for a tick to flush it. */
    private static final long WAIT = 90 * MS;
    /** 12 bytes of record, 16 framed: four fill a segment of the fixture's 64 bytes exactly. */
    private static final int QUARTER_RECORD = PartitionFixture.DEFAULT_SEGMENT_SIZE / 4 - 4;

    private final PartitionFixture fixture = new PartitionFixture();
    private long now; // the partition's clock, test thread only
    /** Run once inside the partition's next clock read, to put another thread's work in the middle of it. */
    private Runnable onNextClockRead;
    /** The partition under test, on the test's clock, and its flusher, ticked by hand. */
    private ResultPartition partition;
    private PeriodicFlusher flusher;
    /** The reader of subpartition 0 and its notifications, for the tests of one subpartition. */
    private final RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
    private ResultSubpartitionView view;

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    // RP-10
    @Test
    void byteNotYetDue_isNotFlushed_thenIsFlushedOnceItWaitedTheIntervalLessOneTick() throws Exception {
        oneSubpartitionWithItsReader();
        partition.emitRecord(TestRecords.record(0, 0, 5), 0);

        now = WAIT - 1;
        assertEquals(TICK, flusher.flushDue(now), "due in 1 ns: the next tick comes one tick later, not sooner");
        assertEquals(0, listener.total(), "not due yet: nothing to read");
        now = WAIT;
        flusher.flushDue(now);

        assertEquals(1, listener.total());
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 5))), Polled.take(view).bytes());
    }

    // RP-10
    @Test
    void bufferThatFillsBeforeItsFirstByteIsDue_isSentWhole_notCutByTheTicks() throws Exception {
        oneSubpartitionWithItsReader();
        List<byte[]> records = new ArrayList<>();

        for (int i = 0; i < 4; i++) {
            now = i * 25 * MS; // 0, 25, 50 and 75 ms: every tick but the last record's finds a partly filled buffer
            flusher.flushDue(now);
            assertEquals(0, listener.total(), "flushed at " + now / MS + " ms, before the first byte was due");
            records.add(TestRecords.recordBytes(0, i, QUARTER_RECORD));
            partition.emitRecord(TestRecords.record(0, i, QUARTER_RECORD), 0);
        }

        assertEquals(1, listener.total(), "the full buffer is announced when it is finished");
        Polled whole = Polled.take(view);
        assertEquals(PartitionFixture.DEFAULT_SEGMENT_SIZE, whole.bytes().length, "one full buffer");
        assertArrayEquals(TestRecords.framed(records), whole.bytes());
    }

    // RP-10
    @Test
    void afterTheReaderTookPartOfABuffer_laterBytesWaitTheirOwnInterval() throws Exception {
        oneSubpartitionWithItsReader();
        firstRecordWrittenAtZeroAndFlushedAtWait();
        now = 95 * MS;
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 5))), Polled.take(view).bytes());
        now = 100 * MS;
        partition.emitRecord(TestRecords.record(0, 1, 6), 0); // into the same buffer, after the reader's read at 95

        now = 95 * MS + WAIT - 1;
        flusher.flushDue(now);
        assertEquals(1, listener.total(), "the second record is not due before 90 ms after the read");
        now = 95 * MS + WAIT;
        flusher.flushDue(now);

        assertEquals(2, listener.total());
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 1, 6))), Polled.take(view).bytes());
    }

    // RP-10
    @Test
    void nextTick_isTheEarliestDeadline_neverSoonerThanOneTick_norLaterThanTheInterval() throws Exception {
        partition = partition(3);
        flusher = flusherOf(partition);
        for (int i = 0; i < 3; i++) {
            partition.createSubpartitionView(i, new RecordingAvailabilityListener());
        }
        assertEquals(INTERVAL.toNanos(), flusher.flushDue(now), "nothing waits: one tick per interval");

        partition.emitRecord(TestRecords.record(0, 0, 5), 0); // due at 90 ms
        now = 5 * MS;
        partition.emitRecord(TestRecords.record(1, 0, 5), 1); // due at 95 ms
        assertEquals(85 * MS, flusher.flushDue(now));
        now = 85 * MS;
        assertEquals(TICK, flusher.flushDue(now), "due in 5 ms, but ticks are at least 10 ms apart");
        now = 90 * MS;
        assertEquals(TICK, flusher.flushDue(now), "subpartition 0 flushed; subpartition 1 due in 5 ms");
        assertEquals(1, partition.subpartition(0).getBacklog(), "the flushed partial buffer is sendable");
        assertEquals(0, partition.subpartition(1).getBacklog(), "not due: not sendable");
        assertEquals(0, partition.subpartition(2).getBacklog());
    }

    // RP-10
    @Test
    void subpartitionWithNothingNew_isCheckedOnceInAboutAnInterval_notAtEveryTick() throws Exception {
        oneSubpartitionWithItsReader();
        firstRecordWrittenAtZeroAndFlushedAtWait();
        Polled.take(view); // the reader took every byte at 90 ms: the buffer stays open, empty of unsent bytes

        now = 2 * WAIT;
        long next = flusher.flushDue(now);

        assertEquals(1, listener.total(), "nothing new was written: no flush, no notification");
        assertEquals(WAIT, next, "the empty check stamps anew: due again in 90 ms");
        assertNull(view.getNextBuffer());
    }

    // RP-10; docs/contract.md: data waits at most the flush interval, order and bytes kept
    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L})
    void randomWritesAndReads_noRecordWaitsLongerThanTheInterval_andEveryRecordArrivesInOrder(long seed)
            throws Exception {
        Random random = new Random(seed);
        int subpartitions = 3;
        partition = partition(subpartitions);
        flusher = flusherOf(partition);
        RecordingAvailabilityListener[] listeners = new RecordingAvailabilityListener[subpartitions];
        ResultSubpartitionView[] views = new ResultSubpartitionView[subpartitions];
        int[] seen = new int[subpartitions];
        ByteArrayOutputStream[] received = new ByteArrayOutputStream[subpartitions];
        List<List<Long>> writtenAt = new ArrayList<>();
        List<List<Integer>> lengths = new ArrayList<>();
        List<List<Long>> readAt = new ArrayList<>();
        for (int i = 0; i < subpartitions; i++) {
            listeners[i] = new RecordingAvailabilityListener();
            views[i] = partition.createSubpartitionView(i, listeners[i]);
            received[i] = new ByteArrayOutputStream();
            writtenAt.add(new ArrayList<>());
            lengths.add(new ArrayList<>());
            readAt.add(new ArrayList<>());
        }
        long nextTick = INTERVAL.toNanos();
        long nextWrite = 0;
        for (int step = 0; step < 3_000; step++) {
            if (nextTick <= nextWrite) {
                now = nextTick;
                nextTick = now + flusher.flushDue(now);
            } else {
                now = nextWrite;
                int target = random.nextInt(subpartitions);
                int length = 1 + random.nextInt(40);
                List<Long> times = writtenAt.get(target);
                partition.emitRecord(TestRecords.record(target, times.size(), length), target);
                times.add(now);
                lengths.get(target).add(length);
                // Mostly bursts, sometimes a pause of up to three intervals.
                nextWrite = now + (random.nextInt(10) == 0 ? random.nextInt(300) * MS : random.nextInt(20) * MS);
            }
            for (int i = 0; i < subpartitions; i++) {
                readWhatWasAnnounced(views[i], listeners[i], seen, i, received[i], readAt.get(i));
            }
        }

        for (int i = 0; i < subpartitions; i++) {
            List<byte[]> records = TestRecords.decodeFramed(received[i].toByteArray());
            List<Long> times = writtenAt.get(i);
            // Records still waiting at the end (written less than an interval ago) are simply not read yet.
            assertTrue(records.size() <= times.size());
            for (int r = 0; r < records.size(); r++) {
                assertArrayEquals(TestRecords.recordBytes(i, r, lengths.get(i).get(r)), records.get(r),
                        "subpartition " + i + " record " + r);
            }
            for (int r = records.size(); r < times.size(); r++) {
                assertTrue(now - times.get(r) < INTERVAL.toNanos(), "subpartition " + i + " record " + r
                        + " written at " + times.get(r) / MS + " ms is unread at " + now / MS + " ms");
            }
            for (int r = 0; r < records.size(); r++) {
                long waited = readAt.get(i).get(r) - times.get(r);
                assertTrue(waited <= INTERVAL.toNanos(), "subpartition " + i + " record " + r + " waited "
                        + waited / MS + " ms");
            }
        }
    }

    /** The reader: on a notification, takes everything readable and notes when each record's last byte came. */
    private void readWhatWasAnnounced(ResultSubpartitionView view, RecordingAvailabilityListener listener, int[] seen,
            int index, ByteArrayOutputStream received, List<Long> readAt) throws IOException {
        if (listener.total() == seen[index]) {
            return;
        }
        seen[index] = listener.total();
        BufferAndBacklog next;
        while ((next = view.getNextBuffer()) != null) {
            received.write(Polled.from(next).bytes());
            int complete = completeRecords(received.toByteArray());
            while (readAt.size() < complete) {
                readAt.add(now);
            }
        }
    }

    /** The records wholly inside a framed stream's prefix. */
    private static int completeRecords(byte[] stream) {
        int count = 0;
        int position = 0;
        while (stream.length - position >= 4) {
            int length = ((stream[position] & 0xff) << 24) | ((stream[position + 1] & 0xff) << 16)
                    | ((stream[position + 2] & 0xff) << 8) | (stream[position + 3] & 0xff);
            if (stream.length - position - 4 < length) {
                break;
            }
            position += 4 + length;
            count++;
        }
        return count;
    }

    // RP-10
    @Test
    void byteCommittedWhileTheReaderReadsTheClock_isStampedNoLaterThanItsCommit() throws Exception {
        oneSubpartitionWithItsReader();
        firstRecordWrittenAtZeroAndFlushedAtWait();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        // The reader's thread is preempted for two ticks inside its clock read, while the producer commits a record.
        producerCommitsRecordOneDuringTheNextClockReadThatTakesTwoTicks();
        received.write(Polled.take(view).bytes());
        long committedAt = WAIT;

        now = committedAt + WAIT;
        flusher.flushDue(now);
        if (listener.total() > 1) { // the reader reads again only when told
            BufferAndBacklog next;
            while ((next = view.getNextBuffer()) != null) {
                received.write(Polled.from(next).bytes());
            }
        }

        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 5),
                TestRecords.recordBytes(0, 1, 6))), received.toByteArray(),
                "the record committed at 90 ms is readable at 180 ms, not held until the late stamp is due");
    }

    // RP-10
    @Test
    void byteCommittedWhileAFlushThatFindsNothingReadsTheClock_isStampedNoLaterThanItsCommit() throws Exception {
        oneSubpartitionWithItsReader();
        firstRecordWrittenAtZeroAndFlushedAtWait();
        Polled.take(view); // every byte read at 90 ms: the next check, at 180 ms, finds nothing to send
        now = 2 * WAIT;
        // The flusher's thread is preempted for two ticks inside its clock read, while the producer commits a record.
        producerCommitsRecordOneDuringTheNextClockReadThatTakesTwoTicks();
        flusher.flushDue(now);
        long committedAt = 2 * WAIT;

        now = committedAt + WAIT;
        flusher.flushDue(now);

        assertEquals(2, listener.total(), "the record committed at 180 ms is announced by 270 ms");
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 1, 6))), Polled.take(view).bytes());
    }

    private void producerCommitsRecordOneDuringTheNextClockReadThatTakesTwoTicks() {
        onNextClockRead = () -> {
            try {
                partition.emitRecord(TestRecords.record(0, 1, 6), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            now += 2 * TICK;
        };
    }

    // RP-10
    @Test
    void release_cancelsTheNextTick() throws Exception {
        partition = fixture.newPartition().flushInterval(INTERVAL).setUp();
        ScheduledThreadPoolExecutor scheduler = (ScheduledThreadPoolExecutor) fixture.scheduler();
        assertEquals(1, scheduler.getQueue().size(), "the first tick is scheduled by setup");

        partition.release(null);

        assertEquals(0, scheduler.getQueue().size(), "no tick left after the release");
    }

    private void oneSubpartitionWithItsReader() throws IOException {
        partition = partition(1);
        flusher = flusherOf(partition);
        view = partition.createSubpartitionView(0, listener);
    }

    /** Record 0 of 5 bytes written at 0 and flushed by the tick at {@link #WAIT}, when it is due: announced once. */
    private void firstRecordWrittenAtZeroAndFlushedAtWait() throws IOException {
        partition.emitRecord(TestRecords.record(0, 0, 5), 0);
        now = WAIT;
        flusher.flushDue(now);
    }

    /** A set-up partition on the test's clock, without automatic flushes of its own. */
    private ResultPartition partition(int subpartitions) throws IOException {
        return fixture.newPartition().subpartitions(subpartitions).clock(this::partitionClock).setUp();
    }

    private long partitionClock() {
        Runnable hook = onNextClockRead;
        onNextClockRead = null;
        if (hook != null) {
            hook.run();
        }
        return now;
    }

    /** A flusher of {@link #INTERVAL} over {@code partition}'s subpartitions, ticked by hand. */
    private PeriodicFlusher flusherOf(ResultPartition partition) {
        PipelinedSubpartition[] subpartitions = new PipelinedSubpartition[partition.numberOfSubpartitions()];
        for (int i = 0; i < subpartitions.length; i++) {
            subpartitions[i] = partition.subpartition(i);
        }
        return new PeriodicFlusher(subpartitions, INTERVAL, fixture.scheduler(), () -> now, "test partition");
    }
}
