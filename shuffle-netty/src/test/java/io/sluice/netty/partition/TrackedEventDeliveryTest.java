package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.EventDeliveryListener;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.RecordingInFlightSink;
import io.sluice.netty.testing.TestRecords;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A blocking event whose delivery the producer tracks ({@code broadcastAnnouncedBlockingEvent}, docs/contract.md
 * section 11): each subpartition tells the listener exactly once whether the event went out in its place, was
 * replaced by a priority event, or was dropped; outcomes found by a reader or a release go through the notification
 * executor. Segments of 64 bytes; the fixture checks every segment is back.
 */
@Timeout(30)
class TrackedEventDeliveryTest {

    private final PartitionFixture fixture = new PartitionFixture();
    /** The partition's notification executor: holds tasks until {@link HeldTasks#runAll()}. */
    private final HeldTasks notifications = new HeldTasks();
    /** What the listener was told, as "subpartition:OUTCOME@thread-kind", in order. */
    private final List<String> told = Collections.synchronizedList(new ArrayList<>());
    private final EventDeliveryListener listener = (subpartition, outcome) ->
            told.add(subpartition + ":" + outcome + (notifications.running ? "@notify" : "@caller"));

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    private ResultPartition partition(int subpartitions) throws Exception {
        return fixture.newPartition().subpartitions(subpartitions).notifications(notifications).setUp();
    }

    private static ResultSubpartitionView view(ResultPartition partition, int subpartition) {
        return partition.createSubpartitionView(subpartition, new RecordingAvailabilityListener());
    }

    private static ByteBuffer text(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    private static void emit(ResultPartition partition, int subpartition, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            partition.emitRecord(TestRecords.record(subpartition, i, 40), subpartition);
        }
    }

    @Test
    void eventIsToldSentOnlyOnceItsReaderTakesIt_throughTheNotificationExecutor_andBlocksLikeABlockingEvent()
            throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader0 = view(partition, 0);
        emit(partition, 0, 0, 2);
        partition.broadcastAnnouncedBlockingEvent(text("barrier 3"), listener);
        emit(partition, 0, 2, 3);
        partition.flushAll();

        assertTrue(Polled.take(reader0).isBuffer());
        assertTrue(Polled.take(reader0).isBuffer());
        notifications.runAll();
        assertEquals(List.of(), told, "data before the event was read, the event was not");

        BufferAndBacklog event = reader0.getNextBuffer();
        try {
            assertEquals(EventSerializer.EventType.ANNOUNCED_BLOCKING_USER_EVENT,
                    EventSerializer.typeOf(event.buffer()), "its own tag, so that a remote consumer announces it");
            assertEquals("barrier 3", StandardCharsets.UTF_8.decode(EventSerializer.payloadOf(event.buffer()))
                    .toString());
        } finally {
            event.buffer().recycleBuffer();
        }
        assertEquals(List.of(), told, "told on the notification executor, not on the reader's thread");
        notifications.runAll();
        assertEquals(List.of("0:SENT@notify"), told);
        assertTrue(partition.subpartition(0).isBlockedByEvent(), "blocks until resumed, as a blocking event");
        assertEquals(null, reader0.getNextBuffer());
        reader0.resumeConsumption();
        assertTrue(Polled.take(reader0).isBuffer(), "the record after the event, once resumed");
        notifications.runAll();
        assertEquals(List.of("0:SENT@notify"), told, "subpartition 1's reader has not taken it");
    }

    @Test
    void eventReplacedByAPriorityEvent_isToldPrioritizedOnTheProducerThread_andNeverSent() throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader0 = view(partition, 0);
        ResultSubpartitionView reader1 = view(partition, 1);
        emit(partition, 0, 0, 2);
        emit(partition, 1, 0, 1);
        partition.broadcastAnnouncedBlockingEvent(text("barrier 3"), listener);
        partition.flushAll();
        assertTrue(Polled.take(reader1).isBuffer());
        assertEquals("barrier 3", Polled.take(reader1).eventText());
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        int changed = partition.prioritizeQueuedEvent(
                payload -> StandardCharsets.UTF_8.decode(payload.duplicate()).toString().equals("barrier 3")
                        ? text("unaligned 3") : null, sink);

        assertEquals(1, changed, "subpartition 1 had sent it already");
        assertEquals(List.of("0:PRIORITIZED@caller"), told, "within the call, before the reader's outcome is run");
        notifications.runAll();
        assertEquals(List.of("0:PRIORITIZED@caller", "1:SENT@notify"), told);
        Polled first = Polled.take(reader0);
        assertTrue(first.isPriority());
        assertEquals("unaligned 3", first.eventText());
        assertTrue(Polled.take(reader0).isBuffer());
        assertTrue(Polled.take(reader0).isBuffer());
        assertEquals(null, reader0.getNextBuffer(), "the original event is gone");
        assertFalse(partition.subpartition(0).isBlockedByEvent(), "a priority replacement blocks nothing");
        notifications.runAll();
        assertEquals(2, told.size(), "each subpartition told once: " + told);
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, 40),
                TestRecords.recordBytes(0, 1, 40))), sink.bytes(0));
    }

    @Test
    void eventsNotTakenWhenTheWriterIsReleased_areToldDropped_andAConsumerThatLeavesDropsOnlyItsOwn()
            throws Exception {
        ResultPartition partition = partition(3);
        ResultSubpartitionView reader0 = view(partition, 0);
        ResultSubpartitionView reader1 = view(partition, 1);
        partition.broadcastAnnouncedBlockingEvent(text("barrier 4"), listener);
        assertEquals("barrier 4", Polled.take(reader0).eventText());

        reader1.releaseAllResources();
        notifications.runAll();
        assertEquals(List.of("0:SENT@notify", "1:DROPPED@notify"), told);

        partition.release(new RuntimeException("task failed"));
        notifications.runAll();
        assertEquals(List.of("0:SENT@notify", "1:DROPPED@notify", "2:DROPPED@notify"), told,
                "each subpartition told exactly once");
    }

    @Test
    void subpartitionReleasedAlready_isToldDroppedAtOnce_andARefusedEventTellsNothing() throws Exception {
        ResultPartition partition = partition(2);
        view(partition, 1).releaseAllResources();
        notifications.runAll();

        partition.broadcastAnnouncedBlockingEvent(text("barrier 5"), listener);
        assertEquals(List.of("1:DROPPED@caller"), told);

        ByteBuffer tooLarge = ByteBuffer.allocate(ResultPartitionWriter.MAX_EVENT_BYTES + 1);
        assertThrows(ShuffleException.class, () -> partition.broadcastAnnouncedBlockingEvent(tooLarge, listener));
        partition.release(null);
        notifications.runAll();
        assertEquals(List.of("1:DROPPED@caller", "0:DROPPED@notify"), told, "the refused event was never tracked");
    }

    @Test
    void listenerThatThrows_doesNotKeepTheReaderFromTheEventOrTheDataAfterIt() throws Exception {
        ResultPartition partition = partition(1);
        ResultSubpartitionView reader = view(partition, 0);
        partition.broadcastAnnouncedBlockingEvent(text("barrier 6"), (subpartition, outcome) -> {
            throw new IllegalStateException("engine bug");
        });
        emit(partition, 0, 0, 1);
        partition.flushAll();

        assertEquals("barrier 6", Polled.take(reader).eventText());
        notifications.runAll(); // logged, not rethrown
        reader.resumeConsumption();
        assertTrue(Polled.take(reader).isBuffer());
    }

    /** An executor that holds its tasks until the test runs them, and says whether one is running. */
    private static final class HeldTasks implements Executor {
        private final List<Runnable> tasks = Collections.synchronizedList(new ArrayList<>());
        private volatile boolean running;

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            while (!tasks.isEmpty()) {
                Runnable task = tasks.remove(0);
                running = true;
                try {
                    task.run();
                } finally {
                    running = false;
                }
            }
        }
    }
}
