package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.testing.MemoryAssertions;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.TestRecords;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The producer side: framing records into buffers, backpressure, events, flushing, finishing, failing and
 * releasing (docs/behaviours.md section 5, RP-*, and the writer rules of docs/contract.md).
 */
@Timeout(30)
class ResultPartitionTest {

    private static final int SEGMENT = PartitionFixture.DEFAULT_SEGMENT_SIZE;

    /** A record of this many bytes fills one buffer exactly with its 4-byte length. */
    private static final int ONE_BUFFER_RECORD = SEGMENT - 4;

    private final PartitionFixture fixture = new PartitionFixture();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    /** Every element readable now: data bytes concatenated; events as "event:payload"; the end as "END". */
    private static List<String> drainElements(ResultSubpartitionView view, ByteArrayOutputStream data) {
        List<String> elements = new ArrayList<>();
        for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
            Polled polled = Polled.from(next);
            if (polled.isBuffer()) {
                data.writeBytes(polled.bytes());
                elements.add("data " + polled.bytes().length);
            } else {
                elements.add(polled.endOfPartition() ? "END" : "event:" + polled.eventText());
            }
        }
        return elements;
    }

    // RP-1
    @Test
    void emitAfterFinish_isIllegal_andTakesNoBuffer() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        partition.finish();

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> partition.emitRecord(TestRecords.record(0, 0, 10), 0));

        assertTrue(error.getMessage().contains("finish() was called"), error.getMessage());
        assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
        assertThrows(IllegalStateException.class, () -> partition.broadcastRecord(TestRecords.record(0, 0, 1)));
        assertThrows(IllegalStateException.class, () -> partition.broadcastEvent(ByteBuffer.allocate(1), false));
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertEquals(0, partition.buffersOut());
        assertEquals(0, partition.bytesOut());
    }

    // RP-1
    @Test
    void emitBeforeSetup_isIllegal() {
        ResultPartition partition = fixture.newPartition().build();

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> partition.emitRecord(TestRecords.record(0, 0, 10), 0));

        assertTrue(error.getMessage().contains("setup() was not called"), error.getMessage());
    }

    // RP-2
    @Test
    void emitOnALivePartition_holdsOneBuffer_andCountsItOnceFinished() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);

        partition.emitRecord(TestRecords.record(0, 0, 10), 0);

        assertEquals(1, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertEquals(1, partition.subpartition(0).getNumberOfQueuedBuffers());
        partition.finish();
        assertEquals(1, partition.buffersOut());
        assertEquals(14, partition.bytesOut(), "4-byte length + 10 bytes");
    }

    // RP-2: a released writer refuses data loudly (docs/contract.md: a writer whose partition was released)
    @Test
    void emitAfterReleasePartitionsLocally_throwsShuffleExceptionNamingThePartitionAndWhy_andHoldsNoMemory()
            throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        fixture.manager().releasePartitions(List.of(partition.partitionId()), null);

        assertRefusesEverything(partition, "releasePartitionsLocally");
        partition.flushAll();
        assertEquals(0, partition.buffersOut());
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
        assertTrue(partition.availableFuture().isDone(), "a released partition never blocks its producer");
    }

    @Test
    void emitAfterClose_throwsShuffleExceptionSayingTheWriterWasClosed() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        partition.close();

        assertRefusesEverything(partition, "closed");
    }

    @Test
    void emitAfterTheEnvironmentReleasedThePartition_throwsShuffleExceptionWithTheEnvironmentsReason()
            throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        partition.release(new ProducerFailedException("shuffle environment worker-7 was closed"));

        assertRefusesEverything(partition, "worker-7 was closed");
    }

    private static void assertRefusesEverything(ResultPartition partition, String reason) {
        List<org.junit.jupiter.api.function.Executable> calls = List.of(
                () -> partition.emitRecord(TestRecords.record(0, 0, 500), 0),
                () -> partition.broadcastRecord(TestRecords.record(0, 1, 5)),
                () -> partition.broadcastEvent(ByteBuffer.allocate(3), true),
                () -> partition.broadcastEvent(ByteBuffer.allocate(3), false),
                partition::finish);
        for (org.junit.jupiter.api.function.Executable call : calls) {
            ShuffleException error = assertThrows(ShuffleException.class, call);
            assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
            assertTrue(error.getMessage().contains(reason), error.getMessage());
        }
    }

    // Events are bounded in size ...
    @Test
    void eventAboveTheSizeLimit_isRefusedNamingItsSizeAndTheLimit_andQueuesNothing() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        int size = io.sluice.api.ResultPartitionWriter.MAX_EVENT_BYTES + 1;

        ShuffleException error = assertThrows(ShuffleException.class,
                () -> partition.broadcastEvent(ByteBuffer.allocate(size), false));

        assertTrue(error.getMessage().contains(String.valueOf(size)), error.getMessage());
        assertTrue(error.getMessage().contains(String.valueOf(io.sluice.api.ResultPartitionWriter.MAX_EVENT_BYTES)),
                error.getMessage());
        assertEquals(0, partition.subpartition(0).getNumberOfQueuedBuffers());
        partition.broadcastEvent(ByteBuffer.allocate(size - 1), true); // the limit itself is fine
    }

    // ... and in number: a subpartition whose consumer does not read its events holds at most MAX_QUEUED_EVENTS
    @Test
    void eventsNobodyReads_uptoTheLimitAreQueued_thenBroadcastEventThrowsSayingTheConsumerDoesNotRead()
            throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        int limit = io.sluice.api.ResultPartitionWriter.MAX_QUEUED_EVENTS;
        for (int i = 0; i < limit; i++) {
            partition.broadcastEvent(ByteBuffer.allocate(8), (i & 1) == 0);
        }

        ShuffleException error = assertThrows(ShuffleException.class,
                () -> partition.broadcastEvent(ByteBuffer.allocate(8), false));

        assertTrue(error.getMessage().contains("not reading"), error.getMessage());
        assertTrue(error.getMessage().contains(String.valueOf(limit)), error.getMessage());
        assertEquals(limit, partition.subpartition(0).getNumberOfQueuedBuffers(), "nothing half-broadcast");
        assertEquals(limit, partition.subpartition(1).getNumberOfQueuedBuffers(), "nothing half-broadcast");
        partition.emitRecord(TestRecords.record(0, 0, 10), 0); // records are not affected
    }

    // RP-2: the pool destroyed under a producer that passed the state check (the window between a
    // concurrent release's state change and its subpartitions' release) surfaces as ShuffleException, never as the
    // pool's unchecked BufferPoolDestroyedException
    @Test
    void poolDestroyedUnderTheProducer_emitThrowsShuffleException_notAnUncheckedException() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        partition.bufferPool().lazyDestroy();

        ShuffleException error = assertThrows(ShuffleException.class,
                () -> partition.emitRecord(TestRecords.record(0, 0, 10), 0));

        assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
    }

    // RP-2, as the engine meets it: emitRecord racing close() from another thread, many times
    @Test
    void emitRacingClose_thousandsOfTimes_endsOnlyInShuffleException() throws Exception {
        ByteBuffer record = TestRecords.record(0, 0, ONE_BUFFER_RECORD);
        for (int round = 0; round < 2000; round++) {
            ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(3, 3).setUp();
            BackgroundTask<Void> producer = BackgroundTask.start("racing-producer", () -> {
                try {
                    for (int i = 0; ; i++) {
                        partition.emitRecord(record, i & 1);
                    }
                } catch (ShuffleException expected) {
                    // the only way out
                }
            });
            Thread.onSpinWait();
            partition.close();
            int finalRound = round;
            producer.await(); // any other exception fails here
            assertTrue(partition.isReleased(), "round " + finalRound);
        }
        fixture.close();
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
    }

    // RP-3
    @Test
    void fail_unregistersThePartition_laterRequestsLearnOfTheFailure() throws Exception {
        // RP-3 as Sluice does it (not PartitionNotFoundException): a reader that asks after the failure is told
        // of the failure, so it fails at once instead of retrying for a partition that will never come.
        ResultPartition partition = fixture.setUpPartition(1);
        assertTrue(fixture.manager().registeredPartitionIds().contains(partition.partitionId()));

        partition.fail(new IOException("boom"));

        assertFalse(fixture.manager().registeredPartitionIds().contains(partition.partitionId()));
        ProducerFailedException failed = assertThrows(ProducerFailedException.class,
                () -> fixture.manager().createSubpartitionView(partition.partitionId(), 0,
                        new RecordingAvailabilityListener()));
        assertTrue(failed.getMessage().contains("boom"), failed.getMessage());
        assertTrue(partition.isReleased());
    }

    // RP-3, RPM-1: a partition released without failure is simply gone
    @Test
    void releasedWithoutFailure_laterRequestsDoNotFindIt() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);

        partition.release(null);

        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class,
                () -> fixture.manager().createSubpartitionView(partition.partitionId(), 0,
                        new RecordingAvailabilityListener()));
        assertEquals(partition.partitionId(), notFound.partitionId());
    }

    // RP-5 [core] (our API: close() after finish() keeps the data; a release returns every segment)
    @Test
    void finishedAndClosedPartition_keepsItsBuffersForItsConsumer_untilReleased() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        for (int i = 0; i < 6; i++) {
            partition.emitRecord(TestRecords.record(0, i, ONE_BUFFER_RECORD), i % 2);
        }
        partition.finish();
        partition.close();

        assertFalse(partition.isReleased(), "close after finish leaves the data to its consumers");
        assertEquals(6, partition.bufferPool().bestEffortGetNumOfUsedBuffers(), "six full buffers stay queued");
        assertTrue(fixture.manager().registeredPartitionIds().contains(partition.partitionId()));

        fixture.manager().releasePartitions(List.of(partition.partitionId()), null);

        assertTrue(partition.isReleased());
        assertTrue(partition.bufferPool().isDestroyed());
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
        assertFalse(fixture.manager().registeredPartitionIds().contains(partition.partitionId()));
    }

    // RP-5 [core] (our API: close() without finish() releases at once and fails the consumers)
    @Test
    void closeWithoutFinish_releasesAtOnce_andItsReaderSeesProducerFailed() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
        ResultSubpartitionView view = partition.createSubpartitionView(0, listener);
        partition.emitRecord(TestRecords.record(0, 0, 3 * SEGMENT), 0);

        partition.close();
        partition.close();

        assertTrue(partition.isReleased());
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
        assertTrue(view.isReleased());
        assertTrue(view.getFailureCause() instanceof ProducerFailedException);
        assertTrue(view.getFailureCause().getMessage().contains("closed by its producer before finish()"),
                view.getFailureCause().getMessage());
        assertTrue(listener.total() >= 1, "the reader is told");
    }

    // RP-5: a partition read to its end by every consumer is released by itself
    @Test
    void finishedPartition_isReleased_onceEverySubpartitionWasReadToItsEnd() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        ResultSubpartitionView first = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        ResultSubpartitionView second = partition.createSubpartitionView(1, new RecordingAvailabilityListener());
        partition.broadcastRecord(TestRecords.record(0, 0, 100));
        partition.finish();

        assertEquals("END", drainElements(first, new ByteArrayOutputStream()).get(2));
        first.releaseAllResources();
        assertFalse(partition.isReleased(), "subpartition 1 is not read yet");
        assertEquals("END", drainElements(second, new ByteArrayOutputStream()).get(2));
        second.releaseAllResources();

        assertTrue(partition.isReleased());
        assertFalse(fixture.manager().registeredPartitionIds().contains(partition.partitionId()));
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
    }

    // RP-6
    @Test
    void fullPool_blocksTheProducer_untilTheConsumerRecyclesABuffer() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(1).buffers(2, 2).setUp();
        ResultSubpartitionView view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        partition.emitRecord(TestRecords.record(0, 0, ONE_BUFFER_RECORD), 0);
        partition.emitRecord(TestRecords.record(0, 1, ONE_BUFFER_RECORD), 0);
        CompletableFuture<?> available = partition.availableFuture();
        assertFalse(available.isDone(), "both buffers are queued");

        BackgroundTask<Void> third = emitThirdFullRecord(partition);
        assertFalse(third.isDone(), "the producer waits for a buffer");

        BufferAndBacklog read = view.getNextBuffer();
        read.buffer().recycleBuffer();

        third.await();
        assertTrue(available.isDone(), "the recycled buffer completes the availability future");
        assertTrue(partition.backpressuredNanos() > 0, "blocked time is recorded");
        partition.finish();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        drainElements(view, data);
        assertEquals(2, TestRecords.decodeFramed(data.toByteArray()).size(), "records 1 and 2 follow in order");
    }

    // RP-6: a release wakes a producer blocked on the pool, which fails with the release's reason
    @Test
    void releaseFromAnotherThread_wakesABlockedProducer_withShuffleException() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(1).buffers(2, 2).setUp();
        partition.emitRecord(TestRecords.record(0, 0, ONE_BUFFER_RECORD), 0);
        partition.emitRecord(TestRecords.record(0, 1, ONE_BUFFER_RECORD), 0);
        BackgroundTask<Void> third = emitThirdFullRecord(partition);

        partition.release(new IOException("cancelled"));

        Throwable error = third.awaitFailure();
        assertTrue(error instanceof ShuffleException, String.valueOf(error));
        assertTrue(error.getMessage().contains("cancelled"), error.getMessage());
        MemoryAssertions.assertAllSegmentsReturned(fixture.globalPool());
    }

    // Overdraft: after availableFuture() said available, a record that spans several buffers completes without
    // blocking (Flink's mailbox thread must not block there); the partition stays unavailable until it is repaid
    @Test
    void recordSpanningBuffers_startedWhileAvailable_completesOnOverdraft_thenThePartitionIsUnavailableUntilRepaid()
            throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(1).buffers(2, 2).setUp();
        partition.setMaxOverdraftBuffers(3);
        ResultSubpartitionView view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        partition.emitRecord(TestRecords.record(0, 0, ONE_BUFFER_RECORD), 0);
        assertTrue(partition.availableFuture().isDone(), "one of the two buffers is free");

        // Four buffers' worth: one of the pool's own, then three overdraft buffers.
        BackgroundTask<Void> spanning = BackgroundTask.start("mailbox-like producer",
                () -> partition.emitRecord(TestRecords.record(0, 1, 4 * SEGMENT - 4), 0));
        spanning.await();

        assertEquals(3, partition.bufferPool().getNumberOfOverdraftBuffers());
        assertFalse(partition.availableFuture().isDone(), "no new record while overdraft is out");
        partition.finish();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        drainElements(view, data);
        assertEquals(2, TestRecords.decodeFramed(data.toByteArray()).size(), "both records, whole and in order");
        assertEquals(0, partition.bufferPool().getNumberOfOverdraftBuffers(), "repaid as the consumer recycled");
        assertTrue(partition.bufferPool().getNumberOfAvailableMemorySegments() <= 2,
                "the overdraft went back to the environment, the pool keeps no more than its own 2");
    }

    /** Emits a third one-buffer record into a full pool of two on another thread, and waits until it blocks. */
    private static BackgroundTask<Void> emitThirdFullRecord(ResultPartition partition) {
        BackgroundTask<Void> producer = BackgroundTask.start("blocked-producer",
                () -> partition.emitRecord(TestRecords.record(0, 2, ONE_BUFFER_RECORD), 0));
        Await.blocked(producer.thread());
        return producer;
    }

    // RP-8
    @Test
    void emitFlushAndBroadcast_thenFinish_everySubpartitionReadsItsRecordsInOrder_thenTheEnd() throws Exception {
        int subpartitions = 3;
        ResultPartition partition = fixture.newPartition().subpartitions(subpartitions).buffers(4, 200).setUp();
        List<List<byte[]>> expected = new ArrayList<>();
        ResultSubpartitionView[] views = new ResultSubpartitionView[subpartitions];
        ByteArrayOutputStream[] streams = new ByteArrayOutputStream[subpartitions];
        for (int s = 0; s < subpartitions; s++) {
            expected.add(new ArrayList<>());
            views[s] = partition.createSubpartitionView(s, new RecordingAvailabilityListener());
            streams[s] = new ByteArrayOutputStream();
        }
        Random random = new Random(42);
        for (int i = 0; i < 300; i++) {
            int size = random.nextInt(3 * SEGMENT + 1);
            if (i % 25 == 0) {
                partition.broadcastRecord(TestRecords.record(9, i, size));
                for (List<byte[]> records : expected) {
                    records.add(TestRecords.recordBytes(9, i, size));
                }
            } else {
                int target = random.nextInt(subpartitions);
                partition.emitRecord(TestRecords.record(target, i, size), target);
                expected.get(target).add(TestRecords.recordBytes(target, i, size));
            }
            if (i % 7 == 0) {
                partition.flush(random.nextInt(subpartitions));
            }
            if (i % 11 == 0) {
                drainElements(views[i % subpartitions], streams[i % subpartitions]);
            }
        }
        partition.finish();

        for (int s = 0; s < subpartitions; s++) {
            List<String> tail = drainElements(views[s], streams[s]);
            assertEquals("END", tail.get(tail.size() - 1), "subpartition " + s + " ends with its end");
            assertEquals(1, tail.stream().filter("END"::equals).count());
            assertNull(views[s].getNextBuffer());
            List<byte[]> records = TestRecords.decodeFramed(streams[s].toByteArray());
            assertEquals(expected.get(s).size(), records.size(), "records of subpartition " + s);
            for (int r = 0; r < records.size(); r++) {
                assertArrayEquals(expected.get(s).get(r), records.get(r), "record " + r + " of subpartition " + s);
            }
        }
    }

    // RP-9
    @Test
    void recordLargerThanTheSpaceLeft_continuesInTheNextBuffer() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        ResultSubpartitionView view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        byte[] first = TestRecords.recordBytes(0, 0, 50);
        byte[] second = TestRecords.recordBytes(0, 1, 30);

        partition.emitRecord(ByteBuffer.wrap(first), 0);
        partition.emitRecord(ByteBuffer.wrap(second), 0);
        partition.finish();

        byte[] stream = TestRecords.framed(List.of(first, second));
        Polled full = Polled.take(view);
        Polled rest = Polled.take(view);
        assertEquals(SEGMENT, full.bytes().length, "54 bytes of the first record, 10 of the second");
        assertEquals(88 - SEGMENT, rest.bytes().length, "the second record's remaining 24 bytes");
        assertArrayEquals(Arrays.copyOfRange(stream, 0, SEGMENT), full.bytes());
        assertArrayEquals(Arrays.copyOfRange(stream, SEGMENT, stream.length), rest.bytes());
        BufferAndBacklog end = view.getNextBuffer();
        try {
            assertTrue(EventSerializer.isEndOfPartition(end.buffer()));
            assertEquals(stream.length, EventSerializer.dataBytesOf(end.buffer()),
                    "the end of partition counts every data byte written to the subpartition, length prefixes included");
        } finally {
            end.buffer().recycleBuffer();
        }
    }

    // docs/contract.md: records from 0 bytes to several buffers; the caller's position and limit are left as they were
    @Test
    void emitRecord_readsFromPositionToLimit_andLeavesBothAsTheyWere() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        ResultSubpartitionView view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        byte[] big = TestRecords.recordBytes(1, 1, 5 * SEGMENT + 3);
        ByteBuffer window = ByteBuffer.wrap(big);
        window.position(7).limit(big.length - 2);
        ByteBuffer empty = ByteBuffer.allocate(0);

        partition.emitRecord(window, 0);
        partition.emitRecord(empty, 0);
        partition.finish();

        assertEquals(7, window.position());
        assertEquals(big.length - 2, window.limit());
        assertEquals(0, empty.position());
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        drainElements(view, data);
        List<byte[]> records = TestRecords.decodeFramed(data.toByteArray());
        assertArrayEquals(Arrays.copyOfRange(big, 7, big.length - 2), records.get(0));
        assertEquals(0, records.get(1).length);
        assertEquals(2, records.size());
    }

    // docs/contract.md: broadcastEvent never blocks and takes no buffer from the pool
    @Test
    void broadcastEvent_takesNoBufferFromThePool_evenWhenItIsEmpty() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(3, 3).setUp();
        partition.emitRecord(TestRecords.record(0, 0, ONE_BUFFER_RECORD), 0);
        partition.emitRecord(TestRecords.record(0, 1, ONE_BUFFER_RECORD), 1);
        partition.emitRecord(TestRecords.record(0, 2, ONE_BUFFER_RECORD), 1);
        assertFalse(partition.availableFuture().isDone(), "the pool is empty");
        ByteBuffer event = ByteBuffer.wrap("checkpoint".getBytes(StandardCharsets.UTF_8));

        partition.broadcastEvent(event, false);
        partition.broadcastEvent(event, true);

        assertEquals(3, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertEquals(0, event.position(), "the event's bytes are copied, its position left alone");
        List<String> first = drainElements(partition.createSubpartitionView(0, new RecordingAvailabilityListener()),
                new ByteArrayOutputStream());
        assertEquals(List.of("event:checkpoint", "data " + SEGMENT, "event:checkpoint"), first);
    }

    // docs/contract.md: flush interval 0 flushes after every record
    @Test
    void zeroFlushInterval_makesEveryRecordReadableAtOnce() throws Exception {
        ResultPartition partition = fixture.newPartition().flushInterval(Duration.ZERO).setUp();
        RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
        ResultSubpartitionView view = partition.createSubpartitionView(0, listener);

        partition.emitRecord(TestRecords.record(0, 0, 5), 0);

        assertEquals(1, listener.total());
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 5))), Polled.take(view).bytes());
        partition.emitRecord(TestRecords.record(0, 1, 6), 0);
        assertEquals(2, listener.total(), "the next record in the same buffer is announced too");
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 1, 6))), Polled.take(view).bytes());
    }

    // docs/contract.md: without an explicit flush, data is readable after at most the flush interval
    @Test
    void periodicFlusher_makesARecordReadable_withoutAnExplicitFlush() throws Exception {
        ResultPartition partition = fixture.newPartition().flushInterval(Duration.ofMillis(5)).setUp();
        RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
        ResultSubpartitionView view = partition.createSubpartitionView(0, listener);

        partition.emitRecord(TestRecords.record(0, 0, 5), 0);
        listener.awaitMoreThan(0);

        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 5))), Polled.take(view).bytes());
    }

    // docs/contract.md: a subpartition whose consumer has gone drops later records and never blocks the producer
    @Test
    void subpartitionWhoseReaderLeft_dropsLaterRecords_withoutBlockingTheProducer() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(3, 3).setUp();
        ResultSubpartitionView leaving = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        partition.emitRecord(TestRecords.record(0, 0, ONE_BUFFER_RECORD), 0);
        leaving.releaseAllResources();

        for (int i = 0; i < 100; i++) {
            partition.emitRecord(TestRecords.record(0, i, ONE_BUFFER_RECORD), 0);
        }

        assertEquals(0, partition.subpartition(0).getNumberOfQueuedBuffers());
        assertTrue(partition.availableFuture().isDone());
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers());
        assertFalse(partition.isReleased(), "subpartition 1 still has a consumer to come");
    }

    // RP-7 (seen from the partition): a partition whose pool does not fit fails setup and reserves nothing
    @Test
    void setupWithoutEnoughMemory_failsWithInsufficientBuffers_andRegistersNothing() throws Exception {
        ResultPartition hungry = fixture.newPartition().subpartitions(4)
                .buffers(PartitionFixture.DEFAULT_SEGMENTS + 1, PartitionFixture.DEFAULT_SEGMENTS + 1).build();

        InsufficientBuffersException error = assertThrows(InsufficientBuffersException.class, hungry::setup);

        assertTrue(error.getMessage().contains("Insufficient number of network buffers"), error.getMessage());
        assertTrue(fixture.manager().registeredPartitionIds().isEmpty());
        assertEquals(0, fixture.globalPool().getNumberOfRegisteredBufferPools());
        hungry.close();
    }

    @Test
    void setupTwice_isIllegal_andADuplicateIdIsRejectedWithoutKeepingItsPool() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        assertThrows(IllegalStateException.class, partition::setup);
        ResultPartition twin = fixture.newPartition().id(partition.partitionId()).build();

        IllegalStateException duplicate = assertThrows(IllegalStateException.class, twin::setup);

        assertTrue(duplicate.getMessage().contains("already registered"), duplicate.getMessage());
        assertEquals(1, fixture.globalPool().getNumberOfRegisteredBufferPools(), "the twin's pool was destroyed");
    }

    @Test
    void emitToANonExistentSubpartition_namesTheRange() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);

        IndexOutOfBoundsException error = assertThrows(IndexOutOfBoundsException.class,
                () -> partition.emitRecord(TestRecords.record(0, 0, 1), 2));

        assertTrue(error.getMessage().contains("has 2 subpartitions; subpartition 2 does not exist"),
                error.getMessage());
    }
}
