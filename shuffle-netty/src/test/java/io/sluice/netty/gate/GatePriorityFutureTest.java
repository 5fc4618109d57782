package io.sluice.netty.gate;

import static io.sluice.netty.gate.TextElements.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gate's priority future against the threads that race on it (docs/contract.md section 5, priority events):
 * while the gate's current priority future is done, the next poll returns a priority event, and once the consumer
 * took every priority event the gate hands out a pending one, whatever order the announcing thread and the consumer
 * run in. Driven with a real {@link RemoteInputChannel}, the test thread acting as the connection's event loop.
 */
@Timeout(60)
class GatePriorityFutureTest {

    private final RemoteChannels channels = new RemoteChannels(64, 64);
    private final ExecutorService eventLoop = Executors.newSingleThreadExecutor();

    @AfterEach
    void closeAndCheckForLeaks() throws InterruptedException {
        eventLoop.shutdownNow();
        assertTrue(eventLoop.awaitTermination(10, TimeUnit.SECONDS), "event loop stopped");
        channels.close();
    }

    // docs/contract.md section 5: the priority future, taken before its announcement has completed it
    @Test
    void priorityEventTakenBeforeTheAnnouncerCompletesTheFuture_leavesAPendingFuture() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        assertFalse(gate.pollNext().isPresent(), "nothing yet: the data future is renewed");

        // The announcing thread completes the data future after leaving the gate's lock and before the priority
        // future; a continuation on the data future holds it exactly there until the consumer has taken the event.
        CountDownLatch announcerPaused = new CountDownLatch(1);
        CountDownLatch eventTaken = new CountDownLatch(1);
        gate.wakeUpFuture().thenRun(() -> {
            announcerPaused.countDown();
            awaitQuietly(eventTaken);
        });
        Future<?> announcement = eventLoop.submit(() -> channel.onBuffer(userEvent("barrier"), 0, 0, true));
        assertTrue(announcerPaused.await(30, TimeUnit.SECONDS), "the announcer reached the data future");
        assertFalse(gate.priorityEventWakeUpFuture().isDone(),
                "the premise: the announcer has not completed the priority future yet");

        Optional<BufferOrEvent> taken = gate.pollNext();
        assertTrue(taken.isPresent() && taken.get().isPriority(), "the announced priority event: " + taken);
        taken.get().recycle();
        eventTaken.countDown();
        announcement.get(30, TimeUnit.SECONDS);

        assertFalse(gate.priorityEventWakeUpFuture().isDone(),
                "every priority event was taken: the gate's priority future is pending, not the late-completed one");
        assertFalse(gate.priorityEventAvailableFuture().isDone());
        assertEquals(Optional.empty(), gate.pollNext());
    }

    // docs/contract.md section 5: the priority future, when the consumer takes the event before it is announced
    @Test
    void priorityEventTakenBeforeItsAnnouncement_isNotCountedByTheLateAnnouncement() throws Exception {
        AtomicBoolean holdNextReceive = new AtomicBoolean();
        CountDownLatch announcerPaused = new CountDownLatch(1);
        CountDownLatch eventTaken = new CountDownLatch(1);
        channels.onBufferReceived(bytes -> {
            if (holdNextReceive.compareAndSet(true, false)) {
                announcerPaused.countDown();
                awaitQuietly(eventTaken);
            }
        });
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        Buffer data = channel.requestBuffer();
        data.getMemorySegment().put(0, new byte[] {1, 2, 3}, 0, 3);
        data.setSize(3);
        channel.onBuffer(data, 0, 0, false);

        // The event loop queues the priority event in the channel, which the gate already serves for its data, and
        // is held before it announces the event.
        holdNextReceive.set(true);
        Future<?> announcement = eventLoop.submit(() -> channel.onBuffer(userEvent("barrier"), 1, 0, true));
        assertTrue(announcerPaused.await(30, TimeUnit.SECONDS), "the event loop queued the priority event");
        Optional<BufferOrEvent> first = gate.pollNext();
        assertTrue(first.isPresent() && first.get().isPriority(), "the priority event overtakes the data: " + first);
        first.get().recycle();
        eventTaken.countDown();
        announcement.get(30, TimeUnit.SECONDS);

        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "the late announcement found nothing left to take");
        Optional<BufferOrEvent> second = gate.pollNext();
        assertTrue(second.isPresent() && !second.get().isEvent(), "the data: " + second);
        second.get().recycle();

        channel.onBuffer(userEvent("next barrier"), 2, 0, true);
        assertTrue(gate.priorityEventWakeUpFuture().isDone(), "the next priority event is announced as usual");
        Optional<BufferOrEvent> third = gate.pollNext();
        assertTrue(third.isPresent() && third.get().isPriority(), "the next priority event: " + third);
        third.get().recycle();
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "every priority event was taken");
        assertEquals(Optional.empty(), gate.pollNext());
    }

    // docs/contract.md section 11: an announcement taken before its notification, and its event moved meanwhile
    @Test
    void announcementTakenBeforeItsNotification_thenItsEventMoved_leavesTheFutureConsistent() throws Exception {
        AtomicBoolean holdNextReceive = new AtomicBoolean();
        CountDownLatch announcerPaused = new CountDownLatch(1);
        CountDownLatch moved = new CountDownLatch(1);
        channels.onBufferReceived(bytes -> {
            if (holdNextReceive.compareAndSet(true, false)) {
                announcerPaused.countDown();
                awaitQuietly(moved);
            }
        });
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        channel.onBuffer(data(channel), 0, 0, false);

        // The event loop queues the announced event and its announcement, and is held before it tells the gate.
        holdNextReceive.set(true);
        Future<?> receipt = eventLoop.submit(() -> channel.onBuffer(
                EventSerializer.announcedBlockingUserEvent(utf8("barrier")), 1, 0, false));
        assertTrue(announcerPaused.await(30, TimeUnit.SECONDS), "the event loop queued the announced event");
        BufferOrEvent announcement = gate.pollNext().orElseThrow();
        assertTrue(announcement.isAnnouncement(), "the announcement overtakes the data: " + announcement);
        announcement.recycle();
        assertTrue(gate.prioritizeAnnounced(0, announcement.announcedSequenceNumber()));
        assertFalse(gate.priorityEventWakeUpFuture().isDone(),
                "the late notification is still due: the count stays where the gate can keep its promise");
        moved.countDown();
        receipt.get(30, TimeUnit.SECONDS);

        assertTrue(gate.priorityEventWakeUpFuture().isDone(), "one priority element left: the moved event");
        BufferOrEvent event = gate.pollNext().orElseThrow();
        assertTrue(event.isPriority() && !event.isAnnouncement(), "the moved event: " + event);
        event.recycle();
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "every priority element was taken");
        BufferOrEvent rest = gate.pollNext().orElseThrow();
        assertFalse(rest.isEvent(), "the data the event overtook: " + rest);
        rest.recycle();
        assertEquals(Optional.empty(), gate.pollNext(), "the event is not handed out a second time");
    }

    // docs/contract.md section 11: announcements and moved events racing with the event loop, round after round
    @Test
    void whileThePriorityFutureIsDone_theNextPollIsPriority_withAnnouncementsAndMovesRacingTheEventLoop()
            throws Exception {
        int rounds = 300;
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        Semaphore resumed = new Semaphore(0);
        // Each round: a data buffer, then an announced event, after which the producer waits to be resumed.
        Future<?> producer = eventLoop.submit(() -> {
            for (int round = 0; round < rounds; round++) {
                channel.onBuffer(data(channel), 2 * round, 0, false);
                channel.onBuffer(EventSerializer.announcedBlockingUserEvent(utf8("barrier")), 2 * round + 1, 0,
                        false);
                if (!resumed.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("the consumer never resumed round " + round);
                }
            }
            return null;
        });

        int events = 0;
        int buffers = 0;
        int resumedRounds = 0;
        int movedEvents = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (events < rounds || buffers < rounds) {
            assertTrue(System.nanoTime() < deadline, "stuck after " + events + " events and " + buffers + " buffers");
            boolean promised = gate.priorityEventWakeUpFuture().isDone();
            Optional<BufferOrEvent> next = gate.pollNext();
            if (promised) {
                assertTrue(next.isPresent() && next.get().isPriority(),
                        "the priority future was done, yet the poll returned " + next);
            }
            if (next.isEmpty()) {
                Thread.onSpinWait();
                continue;
            }
            BufferOrEvent element = next.get();
            if (element.isAnnouncement()) {
                // Every other round's event is moved ahead of its data, right after its announcement.
                if (events % 2 == 0) {
                    assertTrue(gate.prioritizeAnnounced(0, element.announcedSequenceNumber()), "still held");
                    movedEvents++;
                }
            } else if (element.isEvent()) {
                events++;
            } else {
                buffers++;
            }
            element.recycle();
            if (events == buffers && events > resumedRounds) {
                // The round's data and event were both taken: the consumer resumes the producer.
                resumedRounds++;
                resumed.release();
            }
        }
        producer.get(30, TimeUnit.SECONDS);
        assertEquals(rounds / 2, movedEvents);
        assertEquals(Optional.empty(), gate.pollNext());
        assertFalse(gate.priorityEventWakeUpFuture().isDone());
    }

    /** A data buffer of the channel holding three bytes, as the event loop fills one. */
    private static Buffer data(RemoteInputChannel channel) {
        Buffer data = channel.requestBuffer();
        data.getMemorySegment().put(0, new byte[] {1, 2, 3}, 0, 3);
        data.setSize(3);
        return data;
    }

    private static Buffer userEvent(String payload) {
        return EventSerializer.userEvent(utf8(payload));
    }

    /** Waits for the latch on the announcing thread, bounded so that a failed test cannot hang it. */
    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
