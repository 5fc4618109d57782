package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    private static Buffer userEvent(String payload) {
        return EventSerializer.userEvent(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
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
