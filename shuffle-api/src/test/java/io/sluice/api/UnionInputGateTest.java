package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.BackgroundTask;
import java.nio.ByteBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class UnionInputGateTest {

    @Test
    void channelsAreNumberedGateByGate() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(2);
        ScriptedInputGate second = new ScriptedInputGate(3);
        first.add(TestBuffer.buffer(1, new byte[] {1}));
        second.add(TestBuffer.buffer(0, new byte[] {2}), TestBuffer.buffer(2, new byte[] {3}));
        UnionInputGate union = new UnionInputGate(List.of(first, second));

        List<Integer> channels = new ArrayList<>();
        List<Byte> bytes = new ArrayList<>();
        for (Optional<BufferOrEvent> next = union.pollNext(); next.isPresent(); next = union.pollNext()) {
            channels.add(next.get().channelIndex());
            bytes.add(next.get().data().get(0));
            next.get().recycle();
        }

        assertEquals(5, union.numberOfInputChannels());
        assertEquals(List.of(1, 2, 4), channels);
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), bytes);
        assertEveryBufferRecycledOnce(first, second);
    }

    @Test
    void pollNext_takesTurnsBetweenGates_soABusyGateCannotStarveTheOthers() throws Exception {
        ScriptedInputGate busy = new ScriptedInputGate(1);
        ScriptedInputGate quiet = new ScriptedInputGate(1);
        for (int i = 0; i < 3; i++) {
            busy.add(TestBuffer.buffer(0, new byte[] {(byte) i}));
            quiet.add(TestBuffer.buffer(0, new byte[] {(byte) (10 + i)}));
        }
        UnionInputGate union = new UnionInputGate(List.of(busy, quiet));

        List<Integer> channels = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            BufferOrEvent next = union.pollNext().orElseThrow();
            channels.add(next.channelIndex());
            next.recycle();
        }

        assertEquals(List.of(0, 1, 0, 1, 0, 1), channels);
    }

    @Test
    void eventsKeepTheirKindAndPayload_andRecycleReachesTheGatesBuffer() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        TestBuffer event = TestBuffer.event(0, new byte[] {7, 8});
        second.add(event);
        UnionInputGate union = new UnionInputGate(List.of(first, second));

        BufferOrEvent next = union.pollNext().orElseThrow();

        assertTrue(next.isEvent());
        assertEquals(1, next.channelIndex());
        assertSame(event.data(), next.data());
        next.recycle();
        assertEquals(1, event.recycleCount());
    }

    @Test
    void getNext_waitsOnTheGatesFutures_withoutPollingInALoop() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(2);
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        CompletableFuture<Optional<BufferOrEvent>> next = getNextInBackground(union, first, second);

        second.add(TestBuffer.buffer(1, new byte[] {5}));

        BufferOrEvent received = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertEquals(2, received.channelIndex());
        assertEquals(5, received.data().get(0));
        received.recycle();
        assertEquals(1, first.pollCalls(), "polled once before waiting; its future did not complete: not again");
        assertEquals(2, second.pollCalls(), "polled once before waiting and once after waking");
    }

    @Test
    void getNext_afterAWakeUp_pollsOnlyTheGateThatWoke_notEveryGate() throws Exception {
        List<ScriptedInputGate> gates = gates(100);
        UnionInputGate union = new UnionInputGate(new ArrayList<>(gates));
        CompletableFuture<Optional<BufferOrEvent>> next =
                getNextInBackground(union, gates.toArray(new ScriptedInputGate[0]));

        gates.get(57).add(TestBuffer.buffer(0, new byte[] {57}));

        BufferOrEvent received = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertEquals(57, received.channelIndex());
        received.recycle();
        assertEquals(101, totalPollCalls(gates), "each gate polled once before the wait, then only gate 57");
    }

    @Test
    void readingOneBusyGateAmongMany_pollsTheIdleGatesOnce_notOncePerBuffer() throws Exception {
        List<ScriptedInputGate> gates = gates(100);
        for (int i = 0; i < 50; i++) {
            gates.get(3).add(TestBuffer.buffer(0, new byte[] {(byte) i}));
        }
        UnionInputGate union = new UnionInputGate(new ArrayList<>(gates));

        for (int i = 0; i < 50; i++) {
            BufferOrEvent next = union.pollNext().orElseThrow();
            assertEquals(3, next.channelIndex());
            assertEquals(i, next.data().get(0));
            next.recycle();
        }

        assertEquals(99 + 50, totalPollCalls(gates), "the 99 idle gates once each, the busy one once per buffer");
        int priorityLooks = 0;
        for (ScriptedInputGate gate : gates) {
            priorityLooks += gate.priorityFutureCalls();
        }
        assertTrue(priorityLooks <= 2 * gates.size(), "priority futures looked at " + priorityLooks
                + " times for 50 buffers of 100 gates: once to arm each, not per buffer");
    }

    @Test
    void aPriorityEvent_isPolledBeforeEveryGatesData_whateverTheTurn() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        first.add(TestBuffer.buffer(0, new byte[] {1}), TestBuffer.buffer(0, new byte[] {2}));
        second.add(TestBuffer.buffer(0, new byte[] {3}));
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        BufferOrEvent data = union.pollNext().orElseThrow();
        assertEquals(1, data.data().get(0));
        data.recycle();

        first.addPriority(TestBuffer.event(0, new byte[] {9}));

        BufferOrEvent priority = union.pollNext().orElseThrow();
        assertTrue(priority.isEvent());
        assertEquals(0, priority.channelIndex());
        assertEquals(9, priority.data().get(0));
        priority.recycle();
        List<Byte> rest = new ArrayList<>();
        for (Optional<BufferOrEvent> next = union.pollNext(); next.isPresent(); next = union.pollNext()) {
            rest.add(next.get().data().get(0));
            next.get().recycle();
        }
        assertEquals(List.of((byte) 3, (byte) 2), rest, "then the turn goes on where it was: gate 1, then gate 0");
        assertEveryBufferRecycledOnce(first, second);
    }

    // docs/contract.md section 5: while the priority future is done the next poll returns a priority event
    @Test
    void priorityFuture_isDoneOnlyOnceTheUnionQueuedTheGate_soAPollInTheMeantimeCannotReturnData() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        first.add(TestBuffer.buffer(0, new byte[] {1}));
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        union.priorityEventWakeUpFuture(); // arms the gates' priority futures, as Flink's first look does
        List<String> seenInTheWindow = new ArrayList<>();
        // Registered after the union's own continuation, so it runs first (a future runs the latest one first):
        // second's future is done, the union has not queued second yet.
        second.priorityEventWakeUpFuture().thenRun(() -> {
            if (!union.priorityEventWakeUpFuture().isDone()) {
                seenInTheWindow.add("pending");
                return;
            }
            try {
                BufferOrEvent next = union.pollNext().orElseThrow();
                seenInTheWindow.add(next.isPriority() || next.isEvent() ? "priority event" : "data");
                next.recycle();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });

        second.addPriority(TestBuffer.event(0, new byte[] {9}));

        assertEquals(List.of("pending"), seenInTheWindow, "the union's priority future before second is queued");
        assertTrue(union.priorityEventWakeUpFuture().isDone());
        BufferOrEvent priority = union.pollNext().orElseThrow();
        assertEquals(9, priority.data().get(0), "then the priority event comes first");
        priority.recycle();
        assertFalse(union.priorityEventWakeUpFuture().isDone(), "renewed once it was taken");
        union.pollNext().orElseThrow().recycle();
    }

    @Test
    void getNext_wakesForAPriorityEvent() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        CompletableFuture<Optional<BufferOrEvent>> next = getNextInBackground(union, first, second);

        second.addPriority(TestBuffer.event(0, new byte[] {4}));

        BufferOrEvent received = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertTrue(received.isEvent());
        assertEquals(1, received.channelIndex());
        received.recycle();
    }

    @Test
    void wakeUpFuture_isPendingWhileNoGateWoke_andDoneOnceOneDoes() throws Exception {
        List<ScriptedInputGate> gates = gates(3);
        UnionInputGate union = new UnionInputGate(new ArrayList<>(gates));
        assertTrue(union.wakeUpFuture().isDone(), "every gate is to be polled at first");
        assertEquals(Optional.empty(), union.pollNext());

        CompletableFuture<?> wakeUp = union.wakeUpFuture();
        assertFalse(wakeUp.isDone());
        gates.get(2).add(TestBuffer.buffer(0, new byte[] {2}));

        assertTrue(wakeUp.isDone(), "completed by the thread that woke gate 2");
        BufferOrEvent next = union.pollNext().orElseThrow();
        assertEquals(2, next.channelIndex());
        next.recycle();
    }

    @Test
    void wakeUpFuture_isDoneOnceEveryGateFinished() throws Exception {
        List<ScriptedInputGate> gates = gates(2);
        UnionInputGate union = new UnionInputGate(new ArrayList<>(gates));
        assertEquals(Optional.empty(), union.pollNext());
        CompletableFuture<?> wakeUp = union.wakeUpFuture();

        gates.get(0).finish();
        gates.get(1).finish();

        assertTrue(wakeUp.isDone(), "a gate finishing wakes the union");
        assertEquals(Optional.empty(), union.getNext());
        assertTrue(union.wakeUpFuture().isDone(), "nothing left to wait for");
    }

    /** Starts {@code union.getNext()} on another thread and returns once it waits on every gate given. */
    private static CompletableFuture<Optional<BufferOrEvent>> getNextInBackground(UnionInputGate union,
            ScriptedInputGate... waitingOn) throws InterruptedException {
        CompletableFuture<Optional<BufferOrEvent>> next =
                BackgroundTask.start("blocked-union-reader", union::getNext).result();
        for (ScriptedInputGate gate : waitingOn) {
            gate.awaitWaiting();
        }
        return next;
    }

    private static List<ScriptedInputGate> gates(int count) {
        List<ScriptedInputGate> gates = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            gates.add(new ScriptedInputGate(1));
        }
        return gates;
    }

    private static int totalPollCalls(List<ScriptedInputGate> gates) {
        int calls = 0;
        for (ScriptedInputGate gate : gates) {
            calls += gate.pollCalls();
        }
        return calls;
    }

    @Test
    void getNext_wakesOnTheGatesWakeUpFutures_evenWhenTheirAvailableFuturesNeverComplete() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1).wakeOnlyThroughWakeUpFuture();
        ScriptedInputGate second = new ScriptedInputGate(1).wakeOnlyThroughWakeUpFuture();
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        CompletableFuture<Optional<BufferOrEvent>> next = getNextInBackground(union, first, second);

        second.add(TestBuffer.buffer(0, new byte[] {7}));

        BufferOrEvent received = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertEquals(1, received.channelIndex());
        assertEquals(7, received.data().get(0));
        received.recycle();
        assertFalse(union.availableFuture().isDone(), "the union's own availableFuture() keeps the gates' guarantee");
    }

    @Test
    void getNext_withOneGateLeftUnfinished_wakesOnThatGatesWakeUpFuture() throws Exception {
        ScriptedInputGate finished = new ScriptedInputGate(1);
        finished.finish();
        ScriptedInputGate open = new ScriptedInputGate(1).wakeOnlyThroughWakeUpFuture();
        UnionInputGate union = new UnionInputGate(List.of(finished, open));
        CompletableFuture<Optional<BufferOrEvent>> next = getNextInBackground(union, open);

        open.add(TestBuffer.buffer(0, new byte[] {9}));

        BufferOrEvent received = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertEquals(1, received.channelIndex());
        assertEquals(9, received.data().get(0));
        received.recycle();
        open.finish();
        assertEquals(Optional.empty(), union.getNext());
        assertEquals(1, open.waits(), "waited once, on the open gate's wake-up future");
    }

    @Test
    void finishedOnlyWhenEveryGateIs_thenGetNextIsEmpty() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        second.add(TestBuffer.buffer(0, new byte[] {1}));
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        first.finish();

        assertFalse(union.isFinished());
        assertTrue(union.availableFuture().isDone(), "the second gate has a buffer");
        BufferOrEvent last = union.getNext().orElseThrow();
        last.recycle();
        second.finish();

        assertTrue(union.isFinished());
        assertTrue(union.availableFuture().isDone());
        assertEquals(Optional.empty(), union.getNext());
    }

    @Test
    void getNext_afterOneGateFinished_waitsOnlyOnTheOthers() throws Exception {
        ScriptedInputGate finished = new ScriptedInputGate(1);
        finished.finish();
        ScriptedInputGate open = new ScriptedInputGate(1);
        UnionInputGate union = new UnionInputGate(List.of(finished, open));

        CompletableFuture<?> available = union.availableFuture();

        assertFalse(available.isDone(), "a finished gate's done future must not wake the union");
        open.add(TestBuffer.buffer(0, new byte[] {1}));
        available.get(10, TimeUnit.SECONDS);
        union.getNext().orElseThrow().recycle();
    }

    @Test
    void aFailingGate_failsGetNext() {
        ScriptedInputGate healthy = new ScriptedInputGate(1);
        ScriptedInputGate failing = new ScriptedInputGate(1);
        failing.fail(new TransportException("Connection reset", null));
        UnionInputGate union = new UnionInputGate(List.of(healthy, failing));

        TransportException failure = assertThrows(TransportException.class, union::getNext);

        assertEquals("Connection reset (remote address null)", failure.getMessage());
    }

    @Test
    void sendTaskEvent_reachesEveryGateWithTheSameBytes() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        ByteBuffer event = ByteBuffer.wrap(new byte[] {9, 8, 7});

        union.sendTaskEvent(event);

        assertArrayEquals(new byte[] {9, 8, 7}, first.taskEvents().get(0));
        assertArrayEquals(new byte[] {9, 8, 7}, second.taskEvents().get(0));
        assertEquals(0, event.position(), "the caller's buffer is left as it was");
    }

    @Test
    void sendTaskEvent_whenOneGateFails_stillReachesTheOthers_andThrows() {
        ScriptedInputGate failing = new ScriptedInputGate(1);
        failing.fail(new ShuffleException("gate 0 broken"));
        ScriptedInputGate healthy = new ScriptedInputGate(1);
        UnionInputGate union = new UnionInputGate(List.of(failing, healthy));

        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> union.sendTaskEvent(ByteBuffer.wrap(new byte[] {1})));

        assertEquals("gate 0 broken", failure.getMessage());
        assertEquals(1, healthy.taskEvents().size());
    }

    @Test
    void sendTaskEventToOneChannel_reachesOnlyTheGateOwningIt_withTheGatesOwnChannelIndex() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(2);
        ScriptedInputGate empty = new ScriptedInputGate(0);
        ScriptedInputGate third = new ScriptedInputGate(3);
        UnionInputGate union = new UnionInputGate(List.of(first, empty, third));

        union.sendTaskEvent(3, ByteBuffer.wrap(new byte[] {5}));

        assertEquals(List.of(), first.taskEventChannels());
        assertEquals(List.of(1), third.taskEventChannels());
        assertArrayEquals(new byte[] {5}, third.taskEvents().get(0));
        assertThrows(IndexOutOfBoundsException.class, () -> union.sendTaskEvent(5, ByteBuffer.allocate(1)));
    }

    @Test
    void resumeConsumption_mapsTheUnionsChannelToItsGate() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(2);
        ScriptedInputGate second = new ScriptedInputGate(2);
        UnionInputGate union = new UnionInputGate(List.of(first, second));

        union.resumeConsumption(0);
        union.resumeConsumption(1);
        union.resumeConsumption(2);

        assertEquals(List.of(0, 1), first.resumedChannels());
        assertEquals(List.of(0), second.resumedChannels());
        assertThrows(IndexOutOfBoundsException.class, () -> union.resumeConsumption(-1));
    }

    @Test
    void setup_setsUpEveryGate() throws Exception {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);

        new UnionInputGate(List.of(first, second)).setup();

        assertEquals(1, first.setupCalls());
        assertEquals(1, second.setupCalls());
        assertEquals(0, first.closeCalls());
    }

    @Test
    void failedSetup_closesEveryGate_soNothingStaysReserved() {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        ScriptedInputGate third = new ScriptedInputGate(1);
        second.failSetupWith(new InsufficientBuffersException("required 4 buffers, free 1"));
        UnionInputGate union = new UnionInputGate(List.of(first, second, third));

        InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, union::setup);

        assertEquals("required 4 buffers, free 1", failure.getMessage());
        assertEquals(0, third.setupCalls());
        assertEquals(List.of(1, 1, 1), List.of(first.closeCalls(), second.closeCalls(), third.closeCalls()));
    }

    @Test
    void uncheckedFailuresOfAGate_reachTheCallerAsShuffleException_namingTheGate_withTheCause() {
        ScriptedInputGate healthy = new ScriptedInputGate(1);
        ScriptedInputGate broken = new ScriptedInputGate(2);
        IllegalStateException bug = new IllegalStateException("gate broke");
        broken.failUncheckedWith(bug);
        UnionInputGate union = new UnionInputGate(List.of(healthy, broken));

        ShuffleException setup = assertThrows(ShuffleException.class, union::setup);
        ShuffleException poll = assertThrows(ShuffleException.class, union::getNext);
        ShuffleException allEvents = assertThrows(ShuffleException.class,
                () -> union.sendTaskEvent(ByteBuffer.wrap(new byte[] {1})));
        ShuffleException oneEvent = assertThrows(ShuffleException.class,
                () -> union.sendTaskEvent(2, ByteBuffer.wrap(new byte[] {1})));
        ShuffleException resume = assertThrows(ShuffleException.class, () -> union.resumeConsumption(1));

        assertEquals("gate 1 of the union cannot be set up: java.lang.IllegalStateException: gate broke",
                setup.getMessage());
        assertEquals(List.of(1, 1), List.of(healthy.closeCalls(), broken.closeCalls()),
                "a failed setup closes every gate");
        assertEquals("gate 1 of the union failed: java.lang.IllegalStateException: gate broke", poll.getMessage());
        assertEquals(1, healthy.taskEvents().size(), "the healthy gate still got the event");
        for (ShuffleException failure : List.of(setup, poll, allEvents, oneEvent, resume)) {
            assertSame(bug, failure.getCause());
        }
    }

    @Test
    void describeChannel_namesTheUnionsChannel_andWhatItsGateSaysOfIt() {
        ScriptedInputGate first = new ScriptedInputGate(2);
        ScriptedInputGate second = new ScriptedInputGate(3);
        UnionInputGate union = new UnionInputGate(List.of(first, second));

        assertEquals("channel 3 of the union: gate 1's channel 1", union.describeChannel(3));
        assertEquals("channel 9", union.describeChannel(9));
    }

    @Test
    void close_closesEveryGate_evenWhenOneThrows() {
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        first.add(TestBuffer.buffer(0, new byte[] {1}));
        first.failCloseWith(new IllegalStateException("close of gate 0 failed"));
        UnionInputGate union = new UnionInputGate(List.of(first, second));

        IllegalStateException failure = assertThrows(IllegalStateException.class, union::close);

        assertEquals("close of gate 0 failed", failure.getMessage());
        assertEquals(1, second.closeCalls());
        assertEquals(1, first.closeCalls());
    }

    @Test
    void anEmptyListOfGates_isRejected() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> new UnionInputGate(List.of()));

        assertEquals("UnionInputGate needs at least one gate", failure.getMessage());
    }

    @Test
    void recordReaderOverAUnion_readsRecordsOfEveryGate() throws Exception {
        byte[] a = FramedStream.record(40, 1);
        byte[] b = FramedStream.record(70, 2);
        ScriptedInputGate first = new ScriptedInputGate(1);
        ScriptedInputGate second = new ScriptedInputGate(1);
        first.addBuffers(0, FramedStream.cutEvery(FramedStream.frame(List.of(a)), 16)).finish();
        second.addBuffers(0, FramedStream.cutEvery(FramedStream.frame(List.of(b)), 16)).finish();

        List<String> received = new ArrayList<>();
        try (RecordReader reader = new RecordReader(new UnionInputGate(List.of(first, second)))) {
            for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
                byte[] bytes = new byte[next.data().remaining()];
                next.data().get(bytes);
                assertArrayEquals(next.channelIndex() == 0 ? a : b, bytes);
                received.add("channel " + next.channelIndex());
            }
        }

        assertEquals(List.of("channel 0", "channel 1"), received);
        assertEveryBufferRecycledOnce(first, second);
    }

    @Test
    void triggerDebloating_triggersEveryGate_andTheSmallestAnnouncedSizeIsTheUnions() {
        ScriptedInputGate first = new ScriptedInputGate(1).announcing(4096);
        ScriptedInputGate second = new ScriptedInputGate(2).announcing(0);
        ScriptedInputGate third = new ScriptedInputGate(1).announcing(1024);
        UnionInputGate union = new UnionInputGate(List.of(first, second, third));

        union.triggerDebloating();

        assertEquals(List.of(1, 1, 1), List.of(first.debloatTriggers(), second.debloatTriggers(),
                third.debloatTriggers()));
        assertEquals(1024, union.debloatedBufferSize(), "a gate that announced nothing does not count");
        assertEquals(0, new UnionInputGate(List.of(second)).debloatedBufferSize());
        union.close();
    }

    private static void assertEveryBufferRecycledOnce(ScriptedInputGate... gates) {
        for (ScriptedInputGate gate : gates) {
            for (TestBuffer buffer : gate.handedOut()) {
                assertEquals(1, buffer.recycleCount(), buffer + " recycled");
            }
        }
    }
}
