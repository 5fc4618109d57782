package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.TestRecords;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gate over local channels: which channel it serves when, what it hands out, when it is finished, and how it
 * fails and closes (docs/behaviours.md section 6, SIG-*).
 */
@Timeout(30)
class SingleInputGateTest {

    private final PartitionFixture fixture = new PartitionFixture();
    private final LocalGates gates = new LocalGates(fixture);
    private final List<SingleInputGate> opened = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (SingleInputGate gate : opened) {
            gate.close();
        }
        fixture.close();
    }

    private SingleInputGate setUpGate(int subpartition, ResultPartition... partitions) throws Exception {
        ResultPartitionId[] ids = new ResultPartitionId[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            ids[i] = partitions[i].partitionId();
        }
        SingleInputGate gate = gates.gate(subpartition, ids);
        opened.add(gate);
        gate.setup();
        return gate;
    }

    private SingleInputGate setUpSpinningGate(Duration spinWait, ResultPartition partition) throws Exception {
        SingleInputGate gate = gates.spinningGate(spinWait, 0, partition.partitionId());
        opened.add(gate);
        gate.setup();
        return gate;
    }

    /** Reads {@code count} records through a RecordReader, then closes it (and so the gate). Consumer thread. */
    private static List<byte[]> readRecords(SingleInputGate gate, int count) throws Exception {
        List<byte[]> records = new ArrayList<>();
        try (RecordReader reader = new RecordReader(gate)) {
            for (int i = 0; i < count; i++) {
                records.add(TestRecords.bytesOf(reader.next().data()));
            }
        }
        return records;
    }

    /** A consumer thread waiting in {@code getNext()} on a gate with nothing to read. */
    private static BackgroundTask<?> blockedInGetNext(SingleInputGate gate) {
        BackgroundTask<?> consumer = BackgroundTask.start("blocked-consumer", gate::getNext);
        Await.blocked(consumer.thread());
        return consumer;
    }

    private static ByteBuffer text(String value) {
        return ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
    }

    // SIG-3; regression: a lone end-of-partition event must count as readable, or a lagging reader hangs
    @Test
    void finishedPartition_readLongAfterItsDataWasQueued_reachesItsEnd() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        for (int i = 0; i < 3; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
        }
        partition.finish();
        SingleInputGate gate = setUpGate(0, partition);

        try (RecordReader reader = new RecordReader(gate)) {
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(TestRecords.recordBytes(0, i, PartitionFixture.ONE_BUFFER_RECORD),
                        TestRecords.bytesOf(reader.next().data()));
            }
            assertNull(reader.next());
        }
        assertTrue(gate.isFinished());
        assertTrue(partition.isReleased(), "read to its end and its reader gone: the partition is released");
    }

    // SIG-2 [core], SIG-1 (local part: local channels take no memory)
    @Test
    void setup_givesEveryLocalChannelTheViewOfItsSubpartition_andTakesNoMemory() throws Exception {
        ResultPartition[] partitions = new ResultPartition[3];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = fixture.setUpPartition(2);
        }
        int freeBefore = fixture.globalPool().getNumberOfAvailableMemorySegments();

        SingleInputGate gate = setUpGate(1, partitions);

        assertEquals(freeBefore, fixture.globalPool().getNumberOfAvailableMemorySegments());

        for (ResultPartition partition : partitions) {
            IllegalStateException taken = assertThrows(IllegalStateException.class,
                    () -> fixture.manager().createSubpartitionView(partition.partitionId(), 1,
                            new RecordingAvailabilityListener()));
            assertTrue(taken.getMessage().contains("already has a reader"), taken.getMessage());
            ResultSubpartitionView other = fixture.manager().createSubpartitionView(partition.partitionId(), 0,
                    new RecordingAvailabilityListener());
            other.releaseAllResources();
        }
        for (int i = 0; i < partitions.length; i++) {
            partitions[i].emitRecord(TestRecords.record(i, 0, 5), 1);
            partitions[i].flush(1);
        }
        boolean[] seen = new boolean[3];
        for (int i = 0; i < 3; i++) {
            GateElement read = GateElement.next(gate);
            assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(read.channel(), 0, 5))),
                    read.bytes(), "channel " + read.channel() + " reads its own partition");
            seen[read.channel()] = true;
        }
        assertArrayEquals(new boolean[] {true, true, true}, seen);
    }

    // SIG-3
    @Test
    void interleavedBuffersEventsAndEnds_comeOutInNotificationOrder_thenTheGateFinishes() throws Exception {
        ResultPartition p0 = fixture.setUpPartition(1);
        ResultPartition p1 = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, p0, p1);
        CompletableFuture<?> initially = gate.availableFuture();
        assertFalse(initially.isDone(), "nothing to read yet");

        p0.emitRecord(TestRecords.record(0, 0, 3), 0);
        p0.flush(0);
        assertTrue(initially.isDone(), "the first notification completes the future");
        p1.emitRecord(TestRecords.record(1, 0, 4), 0);
        p1.flush(0);
        p1.broadcastEvent(text("e1"), false);
        p0.finish();

        GateElement first = GateElement.poll(gate);
        GateElement second = GateElement.poll(gate);
        GateElement third = GateElement.poll(gate);
        assertEquals(0, first.channel());
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 3))), first.bytes());
        assertEquals(1, second.channel());
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(1, 0, 4))), second.bytes());
        assertEquals(1, third.channel());
        assertTrue(third.isEvent());
        assertEquals("e1", third.text(), "channel 0's end of partition is not handed out");
        assertNull(GateElement.poll(gate));
        assertFalse(gate.isFinished(), "channel 1 has not ended");
        CompletableFuture<?> waiting = gate.availableFuture();
        assertFalse(waiting.isDone());

        p1.finish();

        assertTrue(waiting.isDone());
        assertNull(GateElement.poll(gate));
        assertTrue(gate.isFinished());
        assertNull(GateElement.next(gate), "getNext is empty once finished");
        assertTrue(gate.availableFuture().isDone());
    }

    // SIG-4
    @Test
    void notificationAfterEndOfPartition_isIgnored() throws Exception {
        ResultPartition ended = fixture.setUpPartition(1);
        ResultPartition running = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, ended, running);
        ended.finish();
        assertNull(GateElement.poll(gate));
        assertFalse(gate.availableFuture().isDone());

        gate.notifyChannelNonEmpty(gate.channel(0));
        gate.notifyChannelNonEmpty(gate.channel(0));

        assertFalse(gate.availableFuture().isDone(), "a finished channel is never queued again");
        assertNull(GateElement.poll(gate));
    }

    // SIG-5
    @Test
    void sendTaskEvent_reachesTheProducerOfEveryChannel() throws Exception {
        ResultPartition p0 = fixture.setUpPartition(1);
        ResultPartition p1 = fixture.setUpPartition(1);
        List<String> atP0 = new ArrayList<>();
        List<String> atP1 = new ArrayList<>();
        p0.onTaskEvent(event -> atP0.add(StandardCharsets.UTF_8.decode(event).toString()));
        p1.onTaskEvent(event -> atP1.add(StandardCharsets.UTF_8.decode(event).toString()));
        SingleInputGate gate = setUpGate(0, p0, p1);
        ByteBuffer event = text("backwards");

        gate.sendTaskEvent(event);

        assertEquals(List.of("backwards"), atP0);
        assertEquals(List.of("backwards"), atP1);
        assertEquals(0, event.position(), "the caller's buffer is left as it was");
    }

    // SIG-7 [core]
    @Test
    void close_wakesAConsumerBlockedInGetNext_withShuffleException() throws Exception {
        SingleInputGate gate = setUpGate(0, fixture.setUpPartition(1));
        BackgroundTask<?> consumer = blockedInGetNext(gate);

        gate.close();

        Throwable woken = consumer.awaitFailure();
        assertTrue(woken instanceof ShuffleException, String.valueOf(woken));
        assertTrue(woken.getMessage().contains("closed"), woken.getMessage());
    }

    // shuffle.input.spin-wait: a record that arrives while the consumer spins ends the spin
    @Test
    void spinningConsumer_takesARecordThatArrivesDuringItsSpin_withoutParking() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        // A spin longer than the test's timeout: only the data's signal can end it in time.
        SingleInputGate gate = setUpSpinningGate(Duration.ofMinutes(5), partition);
        BackgroundTask<List<byte[]>> consumer = BackgroundTask.start("spinning-consumer", () -> readRecords(gate, 1));
        Await.until(() -> gate.metrics().waitingForDataNanos() > 0, "the consumer spins for data");

        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);

        assertArrayEquals(TestRecords.recordBytes(0, 0, PartitionFixture.ONE_BUFFER_RECORD),
                consumer.await().get(0));
        assertEquals(1, gate.spinHits(), "the spin found the record");
        assertEquals(0, gate.spinMisses(), "it never parked");
    }

    // shuffle.input.spin-wait: a wait of more than eight spins makes the next wait park at once
    @Test
    void spinThatRanOut_parks_andAfterThatLongWaitTheNextWaitParksWithoutSpinning() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        // One microsecond: the first wait spins it in vain and parks until the record below, far longer than 8 us.
        SingleInputGate gate = setUpSpinningGate(Duration.ofNanos(1_000), partition);
        BackgroundTask<List<byte[]>> consumer = BackgroundTask.start("spinning-consumer", () -> readRecords(gate, 2));
        Await.blocked(consumer.thread());

        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        Await.until(() -> gate.metrics().buffersIn() == 1, "the consumer takes the first record");
        Await.blocked(consumer.thread()); // a spin here would run out as well and count a second miss
        partition.emitRecord(TestRecords.record(0, 1, PartitionFixture.ONE_BUFFER_RECORD), 0);

        List<byte[]> records = consumer.await();
        assertArrayEquals(TestRecords.recordBytes(0, 0, PartitionFixture.ONE_BUFFER_RECORD), records.get(0));
        assertArrayEquals(TestRecords.recordBytes(0, 1, PartitionFixture.ONE_BUFFER_RECORD), records.get(1));
        assertEquals(1, gate.spinMisses(), "only the first wait spun: the one after its long wait parked at once");
        assertEquals(0, gate.spinHits());
    }

    // shuffle.input.spin-wait: close ends a spin as it ends a park
    @Test
    void close_endsAConsumerSpinningInGetNext_withShuffleException() throws Exception {
        SingleInputGate gate = setUpSpinningGate(Duration.ofMinutes(5), fixture.setUpPartition(1));
        BackgroundTask<?> consumer = BackgroundTask.start("spinning-consumer", gate::getNext);
        Await.until(() -> gate.metrics().waitingForDataNanos() > 0, "the consumer spins for data");

        gate.close();

        Throwable woken = consumer.awaitFailure();
        assertTrue(woken instanceof ShuffleException, String.valueOf(woken));
        assertTrue(woken.getMessage().contains("closed"), woken.getMessage());
        assertEquals(0, gate.spinMisses(), "the close ended the spin, not its time");
    }

    // shuffle.input.spin-wait: every record of a stream arrives, in order, whether a wait spins or parks
    @Test
    void streamThroughASpinningGate_arrivesCompleteAndInOrder_thenTheGateFinishes() throws Exception {
        int records = 2_000;
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpSpinningGate(Duration.ofNanos(50_000), partition);
        BackgroundTask<Void> producer = BackgroundTask.start("producer", () -> {
            for (int i = 0; i < records; i++) {
                partition.emitRecord(TestRecords.record(0, i, 24 + i % 100), 0);
                if (i % 7 == 0) {
                    partition.flushAll(); // part-filled buffers too, so that waits short and long both occur
                }
            }
            partition.finish();
        });

        try (RecordReader reader = new RecordReader(gate)) {
            for (int i = 0; i < records; i++) {
                assertArrayEquals(TestRecords.recordBytes(0, i, 24 + i % 100), TestRecords.bytesOf(reader.next().data()),
                        "record " + i);
            }
            assertNull(reader.next(), "the end of partition follows the last record");
        }
        producer.await();
        assertTrue(gate.isFinished());
    }

    // SIG-9
    @Test
    void partitionNotFound_isRethrownUnchanged_onEveryRead() throws Exception {
        ResultPartitionId missing = ResultPartitionId.random();
        SingleInputGate gate = gates.setUpGate(0, missing);
        opened.add(gate);

        PartitionNotFoundException first = assertThrows(PartitionNotFoundException.class, () -> gate.getNext());
        PartitionNotFoundException again = assertThrows(PartitionNotFoundException.class, () -> gate.pollNext());

        assertEquals(missing, first.partitionId());
        assertTrue(first.getMessage().contains(missing.toString()), first.getMessage());
        assertSame(first, again, "a failed channel keeps failing every read");
        assertTrue(gate.availableFuture().isDone(), "a failure makes the gate available");
    }

    // SIG-9, PS-6 (the consumer's view of fail(cause))
    @Test
    void producerFailure_reachesTheConsumer_withTheCausesMessage() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, partition);
        partition.emitRecord(TestRecords.record(0, 0, 10), 0);
        IOException cause = new IOException("producer ran out of disk");

        partition.fail(cause);

        ProducerFailedException failure = assertThrows(ProducerFailedException.class, () -> gate.getNext());
        assertTrue(failure.getMessage().contains("producer ran out of disk"), failure.getMessage());
        assertTrue(failure.getMessage().contains(partition.partitionId().toString()), failure.getMessage());
        assertSame(cause, failure.getCause());
    }

    // SIG-10
    @Test
    void close_releasesEveryView_tellsTheEnvironmentOnce_andIsIdempotent() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        SingleInputGate gate = setUpGate(0, partition);
        partition.emitRecord(TestRecords.record(0, 0, 200), 0);
        partition.flush(0);
        assertTrue(gate.availableFuture().isDone());

        gate.close();
        gate.close();

        assertEquals(1, gates.closeCallbacks());
        IllegalStateException released = assertThrows(IllegalStateException.class, () -> fixture.manager()
                .createSubpartitionView(partition.partitionId(), 0, new RecordingAvailabilityListener()));
        assertTrue(released.getMessage().contains("is released"), "its consumer has gone: " + released.getMessage());
        assertEquals(0, partition.subpartition(0).getNumberOfQueuedBuffers(), "unread data is dropped");
        assertTrue(gate.availableFuture().isDone());
        assertThrows(ShuffleException.class, gate::pollNext);
    }

    // SIG-11
    @Test
    void manyChannels_areServedRoundRobin_neverTwiceInARow() throws Exception {
        int channels = 37;
        int buffersPerChannel = 27;
        ResultPartition[] partitions = new ResultPartition[channels];
        for (int c = 0; c < channels; c++) {
            partitions[c] = fixture.setUpPartition(1);
            for (int b = 0; b < buffersPerChannel; b++) {
                partitions[c].emitRecord(TestRecords.record(c, b, PartitionFixture.ONE_BUFFER_RECORD), 0);
            }
            partitions[c].finish();
        }
        SingleInputGate gate = setUpGate(0, partitions);
        int[] read = new int[channels];

        for (int total = 0; total < channels * buffersPerChannel; total++) {
            GateElement next = GateElement.poll(gate);
            int channel = next.channel();
            assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(channel, read[channel],
                    PartitionFixture.ONE_BUFFER_RECORD))), next.bytes(), "channel " + channel + " in order");
            read[channel]++;
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (int count : read) {
                min = Math.min(min, count);
                max = Math.max(max, count);
            }
            assertTrue(max - min <= 1, "after " + (total + 1) + " reads the channels differ by " + (max - min));
        }
        assertNull(GateElement.poll(gate));
        assertTrue(gate.isFinished());
    }

    // ENV-1 ("each gate sets up its channels exactly once")
    @Test
    void setup_twice_isRejected() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, partition);

        IllegalStateException twice = assertThrows(IllegalStateException.class, gate::setup);

        assertTrue(twice.getMessage().contains("setup() runs once"), twice.getMessage());
    }

    @Test
    void gateWithoutChannels_isFinishedFromTheStart() throws Exception {
        SingleInputGate gate = gates.gate(0);
        opened.add(gate);
        gate.setup();

        assertTrue(gate.isFinished());
        assertTrue(gate.availableFuture().isDone());
        assertNull(GateElement.next(gate));
    }

    // docs/contract.md: a priority event overtakes the data queued before it; ordinary events keep their place
    @Test
    void priorityEvent_overtakesQueuedRecords_ordinaryEventsKeepTheirPlace() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        partition.emitRecord(TestRecords.record(0, 1, 7), 0);
        partition.broadcastEvent(text("ordinary"), false);
        partition.emitRecord(TestRecords.record(0, 2, 9), 0);
        partition.flushAll();
        partition.broadcastEvent(text("urgent"), true);
        partition.finish();
        SingleInputGate gate = setUpGate(0, partition);

        List<String> order = new ArrayList<>();
        try (RecordReader reader = new RecordReader(gate)) {
            for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
                byte[] bytes = TestRecords.bytesOf(next.data());
                order.add(next.isEvent() ? new String(bytes, StandardCharsets.UTF_8) : "record " + bytes.length);
            }
        }

        assertEquals(List.of("urgent", "record " + PartitionFixture.ONE_BUFFER_RECORD, "record 7", "ordinary",
                "record 9"), order);
    }

    // docs/contract.md: a priority event overtakes queued data in the receiving gate too
    @Test
    void channelWithAPriorityEvent_isServedBeforeChannelsThatQueuedEarlier() throws Exception {
        ResultPartition p0 = fixture.setUpPartition(1);
        ResultPartition p1 = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, p0, p1);
        p0.emitRecord(TestRecords.record(0, 0, 3), 0);
        p0.flush(0);
        p1.emitRecord(TestRecords.record(1, 0, 3), 0);
        p1.flush(0);

        p1.broadcastEvent(text("urgent"), true);

        GateElement first = GateElement.poll(gate);
        assertEquals(1, first.channel());
        assertTrue(first.isEvent());
        assertEquals("urgent", first.text());
        assertEquals(0, GateElement.poll(gate).channel(), "then the order the channels queued in");
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(1, 0, 3))), GateElement.poll(gate).bytes());
    }

    // docs/contract.md: BufferOrEvent.isPriority() and InputGate.priorityEventAvailableFuture(), in-process channels
    @Test
    void priorityEvents_areFlagged_andThePriorityFutureSaysOnePollsNext_untilAllAreTaken() throws Exception {
        ResultPartition p0 = fixture.setUpPartition(1);
        ResultPartition p1 = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, p0, p1);
        p0.emitRecord(TestRecords.record(0, 0, 3), 0);
        p0.flush(0);
        p1.emitRecord(TestRecords.record(1, 0, 3), 0);
        p1.broadcastEvent(text("ordinary"), false);
        p1.flush(0);
        assertFalse(gate.priorityEventAvailableFuture().isDone(), "no priority event yet");

        p1.broadcastEvent(text("urgent 1"), true);
        p0.broadcastEvent(text("urgent 2"), true);
        p1.broadcastEvent(text("urgent 3"), true);

        assertTrue(gate.priorityEventAvailableFuture().isDone());
        List<String> priority = new ArrayList<>();
        while (gate.priorityEventAvailableFuture().isDone()) {
            BufferOrEvent next = gate.pollNext().orElseThrow();
            try {
                assertTrue(next.isEvent() && next.isPriority(), "while the future is done, a priority event: " + next);
                priority.add(next.channelIndex() + ":" + new String(TestRecords.bytesOf(next.data()),
                        StandardCharsets.UTF_8));
            } finally {
                next.recycle();
            }
        }
        // The latest announcement leads; a channel stays in front until its priority events are all taken.
        assertEquals(List.of("1:urgent 1", "1:urgent 3", "0:urgent 2"), priority);
        List<String> rest = new ArrayList<>();
        for (Optional<BufferOrEvent> next = gate.pollNext(); next.isPresent(); next = gate.pollNext()) {
            assertFalse(next.get().isPriority(), "not a priority element: " + next.get());
            rest.add(next.get().channelIndex() + (next.get().isEvent() ? ":event" : ":buffer"));
            next.get().recycle();
        }
        assertEquals(List.of("1:buffer", "0:buffer", "1:event"), rest);
        assertFalse(gate.priorityEventAvailableFuture().isDone(), "renewed once every priority event was taken");
        gate.close();
        assertTrue(gate.priorityEventAvailableFuture().isDone(), "a closed gate completes it");
    }

    // docs/contract.md section 5: a priority event queued before the consumer's request is announced like the others
    @Test
    void priorityEventQueuedBeforeTheRequest_completesThePriorityFuture_andLaterOnesStillDo() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        partition.emitRecord(TestRecords.record(0, 0, 3), 0);
        partition.flush(0);
        partition.broadcastEvent(text("early"), true);

        SingleInputGate gate = setUpGate(0, partition);
        assertTrue(gate.priorityEventAvailableFuture().isDone(), "the priority event waiting since before the request");
        BufferOrEvent early = gate.pollNext().orElseThrow();
        assertTrue(early.isPriority(), "the early priority event first: " + early);
        early.recycle();
        assertFalse(gate.priorityEventAvailableFuture().isDone(), "renewed: the only priority event was taken");

        partition.broadcastEvent(text("late"), true);
        assertTrue(gate.priorityEventAvailableFuture().isDone(), "a later priority event is counted too");
        BufferOrEvent late = gate.pollNext().orElseThrow();
        assertTrue(late.isPriority(), "the later priority event: " + late);
        late.recycle();
        assertFalse(gate.priorityEventAvailableFuture().isDone());
        BufferOrEvent data = gate.pollNext().orElseThrow();
        assertFalse(data.isEvent(), "then the data queued first: " + data);
        data.recycle();
    }

    // docs/contract.md section 5: while the priority future is done the next poll returns a priority event, also when
    // the priority event waits behind a blocking event the consumer has not resumed from
    @Test
    void priorityEventQueuedWhileBlocked_isAnnouncedOnlyOnResume_soThePriorityFutureNeverPromisesAnEventItCannotGive()
            throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        SingleInputGate gate = setUpGate(0, partition);
        partition.broadcastBlockingEvent(text("aligned barrier"));
        BufferOrEvent blocking = gate.pollNext().orElseThrow();
        assertFalse(blocking.isPriority(), "the blocking event: " + blocking);
        blocking.recycle();

        partition.broadcastEvent(text("unaligned barrier"), true);

        assertFalse(gate.priorityEventAvailableFuture().isDone(),
                "the blocked subpartition cannot hand the priority event out yet");
        assertTrue(gate.pollNext().isEmpty(), "nothing to take while blocked");
        gate.resumeConsumption(0);
        assertTrue(gate.priorityEventAvailableFuture().isDone(), "announced on resume");
        BufferOrEvent priority = gate.pollNext().orElseThrow();
        assertTrue(priority.isPriority(), "the priority event: " + priority);
        priority.recycle();
        assertFalse(gate.priorityEventAvailableFuture().isDone(), "renewed: the only priority event was taken");
        partition.close();
    }

    // docs/contract.md section 5: a priority event queued before a local channel's (retried) request found the
    // partition is announced only once the channel can hand it out, so the poll the announcement wakes returns it
    @Test
    void priorityEventQueuedBeforeALateLocalRequest_isAnnouncedOnlyOnceTheChannelCanHandItOut() throws Exception {
        ResultPartitionId lateId = ResultPartitionId.random();
        ResultPartition other = fixture.setUpPartition(1);
        other.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        other.flush(0);
        ManualRetryScheduler retries = new ManualRetryScheduler();
        SingleInputGate gate = gates.gate(retries, LocalGates.INITIAL_BACKOFF, LocalGates.MAX_BACKOFF, 0, lateId,
                other.partitionId());
        opened.add(gate);
        gate.setup(); // the late partition is not registered yet: its channel retries
        ResultPartition late = fixture.newPartition().id(lateId).subpartitions(1).setUp();
        late.broadcastEvent(text("unaligned barrier"), true);
        // Flink's checkpointed gate polls from the priority future's continuation, as soon as it completes.
        List<BufferOrEvent> polledOnAnnouncement = new ArrayList<>();
        gate.priorityEventWakeUpFuture().thenRun(() -> {
            try {
                gate.pollNext().ifPresent(polledOnAnnouncement::add);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });

        assertTrue(retries.runNext(), "the retried request");

        assertEquals(1, polledOnAnnouncement.size(), "the poll woken by the announcement got an element");
        BufferOrEvent polled = polledOnAnnouncement.get(0);
        try {
            assertTrue(polled.isPriority(), "the announced priority event, not the other channel's data: " + polled);
        } finally {
            polled.recycle();
        }
        BufferOrEvent data = gate.pollNext().orElseThrow();
        assertFalse(data.isEvent(), "then the other channel's data: " + data);
        data.recycle();
        retries.shutdownNow();
    }

    // BUF-1 through the gate: a buffer handed to the engine is recycled once; a second recycle fails
    @Test
    void handedOutBuffer_recycledTwice_fails_andIsReturnedOnlyOnce() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, partition);
        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        partition.flush(0);
        BufferOrEvent element = gate.pollNext().orElseThrow();

        element.recycle();

        assertThrows(IllegalStateException.class, element::recycle);
        partition.close();
    }

    // BUF-1: a local slice shares its reference count with the producer's builder; a second recycle
    // must fail without taking the builder's reference (the producer still writes into that segment)
    @Test
    void localSliceRecycledTwice_failsNamingTheChannel_andLeavesTheProducersBufferAlone() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, partition);
        partition.emitRecord(TestRecords.record(0, 0, 4), 0);
        partition.flush(0); // the builder stays open: the slice and the builder share one segment
        BufferOrEvent element = gate.pollNext().orElseThrow();
        int idleBefore = partition.bufferPool().getNumberOfAvailableMemorySegments();

        element.recycle();
        IllegalStateException second = assertThrows(IllegalStateException.class, element::recycle);

        assertTrue(second.getMessage().contains("channel 0"), second.getMessage());
        assertEquals(idleBefore, partition.bufferPool().getNumberOfAvailableMemorySegments(),
                "the producer's segment went back to the pool while it still writes into it");
        partition.emitRecord(TestRecords.record(0, 1, 4), 0);
        partition.flush(0);
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 1, 4))),
                GateElement.poll(gate).bytes());
        partition.close();
    }

    @Test
    void eventRecycledTwice_failsNamingTheChannel() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = setUpGate(0, partition);
        partition.broadcastEvent(text("marker"), false);
        BufferOrEvent event = gate.pollNext().orElseThrow();
        assertTrue(event.isEvent());

        event.recycle();
        IllegalStateException second = assertThrows(IllegalStateException.class, event::recycle);

        assertTrue(second.getMessage().contains("channel 0"), second.getMessage());
        partition.close();
    }

    @Test
    void subpartitionThePartitionDoesNotHave_failsTheChannel_namingTheRange() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        SingleInputGate gate = setUpGate(5, partition);

        ShuffleException error = assertThrows(ShuffleException.class, gate::getNext);

        assertTrue(error.getMessage().contains("has 2 subpartitions; subpartition 5 does not exist"),
                error.getMessage());
        assertTrue(error.getMessage().contains(partition.partitionId().toString()), error.getMessage());
    }

    @Test
    void consumerInterruptedInGetNext_getsInterruptedException() throws Exception {
        SingleInputGate gate = setUpGate(0, fixture.setUpPartition(1));
        BackgroundTask<?> consumer = blockedInGetNext(gate);

        consumer.thread().interrupt();

        Throwable interrupted = consumer.awaitFailure();
        assertTrue(interrupted instanceof InterruptedException, String.valueOf(interrupted));
    }
}
