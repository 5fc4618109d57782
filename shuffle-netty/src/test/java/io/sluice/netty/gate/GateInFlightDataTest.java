package io.sluice.netty.gate;

import static io.sluice.netty.gate.TextElements.receive;
import static io.sluice.netty.gate.TextElements.receiveEvent;
import static io.sluice.netty.gate.TextElements.take;
import static io.sluice.netty.gate.TextElements.takeAll;
import static io.sluice.netty.gate.TextElements.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InFlightDataSink;
import io.sluice.api.ShuffleException;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gate persisting its data in flight for a checkpoint whose barrier is a priority event (docs/contract.md section
 * 11, {@code InputGate.startPersisting}): remote channels driven the way their connection's event loop drives them,
 * so that what each channel holds at every step is known, and local channels over in-process partitions. Each
 * buffer is handed once, in stream order, with the bytes the consumer gets; nothing after a channel's ending event;
 * every segment is back after close, also when the sink recycles late.
 */
@Timeout(30)
class GateInFlightDataTest {

    /** The ending event of these tests: a barrier, priority or not. */
    private final RemoteChannels remote = new RemoteChannels(256, 64);
    private final PartitionFixture fixture = new PartitionFixture();
    private final LocalGates localGates = new LocalGates(fixture);
    private final List<SingleInputGate> opened = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (SingleInputGate gate : opened) {
            gate.close();
        }
        remote.close();
        fixture.close();
    }

    // --- remote channels -------------------------------------------------------------------------------------------

    @Test
    void remote_heldDataIsHandedAtTheCall_laterDataAsTaken_untilTheEndingPriorityEvent() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, "a0");
        receive(channel, 1, "a1");
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0", "a1"), sink.texts(0), "the held data, in order, within the call");

        assertEquals("0:a0", take(gate));
        assertEquals("0:a1", take(gate));
        receive(channel, 2, "a2");
        assertEquals(List.of("a0", "a1"), sink.texts(0), "data received later is handed when taken, not before");
        assertEquals("0:a2", take(gate));
        assertEquals(List.of("a0", "a1", "a2"), sink.texts(0));

        receiveEvent(channel, 3, "barrier", true);
        receive(channel, 4, "a4");
        assertEquals("0:priority barrier", take(gate));
        assertEquals("0:a4", take(gate));
        assertNull(take(gate));
        assertEquals(List.of("a0", "a1", "a2"), sink.texts(0), "nothing after the ending event");
    }

    @Test
    void remote_anEndingPriorityEventReceivedAfterTheStart_handsTheDataItOvertook_whenTaken() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RecordingSink sink = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, sink);

        receive(channel, 0, "a0");
        receive(channel, 1, "a1");
        receiveEvent(channel, 2, "barrier", true);
        receive(channel, 3, "a3");
        assertEquals(List.of(), sink.texts(0), "nothing taken yet");

        assertEquals("0:priority barrier", take(gate));
        assertEquals(List.of("a0", "a1"), sink.texts(0), "the data the barrier overtook in the channel, at its take");
        assertEquals(List.of("0:a0", "0:a1", "0:a3"), takeAll(gate), "the consumer still gets every buffer");
        assertEquals(List.of("a0", "a1"), sink.texts(0), "each once, and nothing received after the barrier");
    }

    @Test
    void remote_anEndingEventTakenBeforeTheStart_handsOnlyTheDataReceivedBeforeIt() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, "a0");
        receive(channel, 1, "a1");
        receiveEvent(channel, 2, "barrier", true);
        receive(channel, 3, "a3");
        assertEquals("0:priority barrier", take(gate), "the barrier that starts the checkpoint");

        RecordingSink sink = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0", "a1"), sink.texts(0), "the held data received before the barrier, at the call");

        assertEquals(List.of("0:a0", "0:a1", "0:a3"), takeAll(gate));
        assertEquals(List.of("a0", "a1"), sink.texts(0), "nothing more");
    }

    @Test
    void remote_aNonPriorityEndingEvent_endsPersistingWhereItIs_heldOrReceivedLater() throws Exception {
        SingleInputGate gate = remote.gate(2, 8, 0);
        RemoteInputChannel held = RemoteChannels.channel(gate, 0);
        RemoteInputChannel later = RemoteChannels.channel(gate, 1);
        receive(held, 0, "a0");
        receiveEvent(held, 1, "barrier", false);
        receive(held, 2, "a2");
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0"), sink.texts(0), "the held data before the held barrier, at the call");
        assertEquals(List.of(), sink.texts(1));

        receive(later, 0, "b0");
        receiveEvent(later, 1, "barrier", false);
        receive(later, 2, "b2");
        List<String> taken = takeAll(gate);
        assertEquals(6, taken.size(), "" + taken);
        assertEquals(List.of("a0"), sink.texts(0), "nothing after the held barrier");
        assertEquals(List.of("b0"), sink.texts(1), "the data before the barrier as taken, nothing after it");
    }

    @Test
    void remote_twoChannelsAtDifferentPoints_eachHandsWhatComesBeforeItsOwnBarrier() throws Exception {
        SingleInputGate gate = remote.gate(2, 8, 0);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        RemoteInputChannel second = RemoteChannels.channel(gate, 1);
        receive(first, 0, "a0");
        receiveEvent(first, 1, "barrier", true);
        receive(first, 2, "a2");
        receive(second, 0, "b0");
        assertEquals("0:priority barrier", take(gate), "the first barrier, which starts the checkpoint");

        RecordingSink sink = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0"), sink.texts(0));
        assertEquals(List.of("b0"), sink.texts(1));

        receive(second, 1, "b1");
        receiveEvent(second, 2, "barrier", true);
        receive(second, 3, "b3");
        assertEquals("1:priority barrier", take(gate));
        assertEquals(List.of("b0", "b1"), sink.texts(1), "what the second barrier overtook in its channel");
        List<String> rest = takeAll(gate);
        assertTrue(rest.containsAll(List.of("0:a0", "0:a2", "1:b0", "1:b1", "1:b3")), "" + rest);
        assertEquals(List.of("a0"), sink.texts(0));
        assertEquals(List.of("b0", "b1"), sink.texts(1));
    }

    @Test
    void remote_otherEventsNeitherEndNorGetPersisted_andEachHandedBufferHasTheConsumersBytes() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, "a0");
        receiveEvent(channel, 1, "other", false);
        receiveEvent(channel, 2, "urgent", true);
        receive(channel, 3, "a3");
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0", "a3"), sink.texts(0), "every held buffer; no event");
        receive(channel, 4, "a4");
        List<byte[]> consumed = new ArrayList<>();
        for (Optional<BufferOrEvent> next = gate.pollNext(); next.isPresent(); next = gate.pollNext()) {
            if (!next.get().isEvent()) {
                consumed.add(TestRecords.bytesOf(next.get().data()));
            }
            next.get().recycle();
        }
        assertEquals(3, consumed.size());
        List<RecordingSink.Persisted> persisted = sink.persisted();
        assertEquals(3, persisted.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(consumed.get(i), persisted.get(i).bytes(), "buffer " + i);
        }
    }

    @Test
    void remote_stopPersisting_stopsEveryChannel_andWhatWasHandedStaysTheSinksAfterClose() throws Exception {
        SingleInputGate gate = remote.gate(2, 8, 0);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        RemoteInputChannel second = RemoteChannels.channel(gate, 1);
        receive(first, 0, "a0");
        receive(second, 0, "b0");
        RecordingSink sink = RecordingSink.keepingBuffers();
        gate.startPersisting(TextElements.BARRIER, sink);
        receive(first, 1, "a1");

        gate.stopPersisting();
        receiveEvent(second, 1, "barrier", true);
        assertEquals(4, takeAll(gate).size());
        assertEquals(List.of("a0"), sink.texts(0), "nothing handed after the stop");
        assertEquals(List.of("b0"), sink.texts(1), "not even what a barrier overtook");

        gate.close();
        List<BufferOrEvent> kept = sink.recycleKept();
        assertEquals(2, kept.size());
        assertThrows(IllegalStateException.class, () -> kept.get(0).recycle(), "each is recycled exactly once");
        // remote.close() (after each test) asserts that every segment is back in the global pool.
    }

    @Test
    void remote_aSinkThatKeepsTheBuffersPastTheClose_getsTheBytesIntact_andTheSegmentsComeBackAfterIt()
            throws Exception {
        SingleInputGate gate = remote.gate(1, 4, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, "a0");
        receive(channel, 1, "a1");
        RecordingSink sink = RecordingSink.keepingBuffers();
        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals("0:a0", take(gate));

        gate.close();
        int free = remote.globalPool().getNumberOfAvailableMemorySegments();
        assertEquals(List.of("a0", "a1"), sink.keptTexts(), "the kept buffers' bytes, after the gate closed");
        sink.recycleKept();
        assertEquals(free + 2, remote.globalPool().getNumberOfAvailableMemorySegments(),
                "the two buffers the sink kept went back when it recycled them, not before");
    }

    @Test
    void remote_withNoPersistingStarted_aBarrierHandsNothing_andTheNextStartReplacesTheSink() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RecordingSink first = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, first);
        gate.stopPersisting();
        receive(channel, 0, "a0");
        receiveEvent(channel, 1, "barrier", true);
        assertEquals("0:priority barrier", take(gate));
        assertEquals("0:a0", take(gate));
        assertEquals(List.of(), first.texts(0), "nothing while none is started");

        receive(channel, 2, "a2");
        RecordingSink second = RecordingSink.recyclingAtOnce();
        gate.startPersisting(payload -> "second".equals(utf8(payload)), second);
        receive(channel, 3, "a3");
        assertEquals(List.of("0:a2", "0:a3"), takeAll(gate));
        assertEquals(List.of(), first.texts(0));
        assertEquals(List.of("a2", "a3"), second.texts(0), "a barrier of an earlier checkpoint ends nothing");
    }

    @Test
    void remote_aSinkThatThrows_reachesTheCaller_orFailsTheChannelWhoseBufferItGot_andLeaksNothing()
            throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receive(channel, 0, "a0");
        receive(channel, 1, "a1");
        InFlightDataSink failing = (index, buffer) -> {
            buffer.recycle();
            throw new IllegalStateException("disk full");
        };

        IllegalStateException atStart = assertThrows(IllegalStateException.class,
                () -> gate.startPersisting(TextElements.BARRIER, failing));
        assertEquals("disk full", atStart.getMessage());
        assertEquals(List.of("0:a0", "0:a1"), takeAll(gate), "persisting stopped: the failing sink sees nothing more");

        gate.startPersisting(TextElements.BARRIER, failing);
        receive(channel, 2, "a2");
        ShuffleException atTake = assertThrows(ShuffleException.class, gate::pollNext);
        assertTrue(atTake.getMessage().contains("channel 0") && atTake.getMessage().contains("disk full"),
                atTake.getMessage());
        assertThrows(ShuffleException.class, gate::pollNext, "the channel's stream is no longer whole: it failed");
        // remote.close() (after each test) asserts that the buffer retained for the sink and a2 came back.
    }

    // --- local channels --------------------------------------------------------------------------------------------

    @Test
    void local_theDataTakenBeforeTheEndingPriorityEventIsHanded_whatItOvertookIsTheProducers() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = localGate(partition);
        partition.emitRecord(TestRecords.record(0, 0, 10), 0);
        partition.flushAll();
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(0, sink.persisted().size(), "a local channel holds nothing it received: nothing at the call");

        GateElement r0 = GateElement.poll(gate);
        assertNotNull(r0);
        partition.emitRecord(TestRecords.record(0, 1, 11), 0);
        partition.flushAll();
        partition.broadcastEvent(utf8("barrier"), true);
        partition.emitRecord(TestRecords.record(0, 2, 12), 0);
        partition.flushAll();

        GateElement barrier = GateElement.poll(gate);
        assertTrue(barrier.isEvent() && "barrier".equals(barrier.text()));
        List<GateElement> rest = takeAllLocal(gate);
        assertFalse(rest.isEmpty());
        assertTrue(rest.stream().noneMatch(GateElement::isEvent), "the records the barrier overtook, and later ones");
        assertEquals(1, sink.persisted().size(), "only the data taken before the barrier");
        assertArrayEquals(r0.bytes(), sink.persisted().get(0).bytes());
    }

    @Test
    void local_anEndingEventTakenBeforeTheStart_handsNothing_andANonPriorityOneEndsWhereItIs() throws Exception {
        ResultPartition taken = fixture.setUpPartition(1);
        ResultPartition aligned = fixture.setUpPartition(1);
        SingleInputGate gate = localGate(taken, aligned);
        taken.broadcastEvent(utf8("barrier"), true);
        taken.emitRecord(TestRecords.record(0, 0, 10), 0);
        taken.flushAll();
        GateElement first = GateElement.poll(gate);
        assertTrue(first.channel() == 0 && first.isEvent(), "the barrier that starts the checkpoint");
        aligned.emitRecord(TestRecords.record(1, 0, 20), 0);
        aligned.broadcastEvent(utf8("barrier"), false);
        aligned.emitRecord(TestRecords.record(1, 1, 21), 0);
        aligned.flushAll();
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        List<GateElement> rest = new ArrayList<>();
        for (GateElement next = GateElement.poll(gate); next != null; next = GateElement.poll(gate)) {
            rest.add(next);
        }

        assertEquals(4, rest.size());
        assertEquals(List.of(), sink.texts(0), "channel 0 took its barrier before the start");
        assertEquals(1, sink.persisted().size(), "channel 1: the one buffer before its barrier");
        GateElement before = rest.stream().filter(e -> e.channel() == 1 && !e.isEvent()).findFirst().orElseThrow();
        assertArrayEquals(before.bytes(), sink.persisted().get(0).bytes());
    }

    @Test
    void local_aSinkThatRecyclesAfterTheGateAndPartitionAreGone_returnsEverySegment() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = localGate(partition);
        RecordingSink sink = RecordingSink.keepingBuffers();
        gate.startPersisting(TextElements.BARRIER, sink);
        for (int i = 0; i < 3; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
        }
        partition.flushAll();
        assertEquals(3, takeAllLocal(gate).size());
        assertEquals(3, sink.persisted().size());

        gate.close();
        partition.release(null);
        sink.recycleKept();
        // fixture.close() (after each test) asserts that every segment is back in the global pool.
    }

    // --- helpers ---------------------------------------------------------------------------------------------------

    private SingleInputGate localGate(ResultPartition... partitions) throws Exception {
        io.sluice.api.ResultPartitionId[] ids = new io.sluice.api.ResultPartitionId[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            ids[i] = partitions[i].partitionId();
        }
        SingleInputGate gate = localGates.setUpGate(0, ids);
        opened.add(gate);
        return gate;
    }

    private static List<GateElement> takeAllLocal(SingleInputGate gate) throws Exception {
        List<GateElement> taken = new ArrayList<>();
        for (GateElement next = GateElement.poll(gate); next != null; next = GateElement.poll(gate)) {
            taken.add(next);
        }
        return taken;
    }
}
