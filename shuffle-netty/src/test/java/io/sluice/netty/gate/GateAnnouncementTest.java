package io.sluice.netty.gate;

import static io.sluice.netty.gate.TextElements.receive;
import static io.sluice.netty.gate.TextElements.receiveEvent;
import static io.sluice.netty.gate.TextElements.take;
import static io.sluice.netty.gate.TextElements.takeAll;
import static io.sluice.netty.gate.TextElements.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.UnionInputGate;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Announced blocking events at the consumer (docs/contract.md section 11, {@code InputGate.prioritizeAnnounced}): a
 * remote channel that receives one hands out an announcement ahead of the data before it, and the event can then be
 * moved ahead of that data, which still counts as before it for persisting. Remote channels driven the way their
 * connection's event loop drives them (the test thread), and local channels over in-process partitions, which
 * announce nothing. Every segment is back after close.
 */
@Timeout(30)
class GateAnnouncementTest {

    private final RemoteChannels remote = new RemoteChannels(256, 64);
    private final PartitionFixture fixture = new PartitionFixture();
    private final LocalGates localGates = new LocalGates(fixture);
    private final List<InputGate> opened = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (InputGate gate : opened) {
            gate.close();
        }
        remote.close();
        fixture.close();
    }

    @Test
    void anAnnouncedEvent_isAnnouncedAheadOfTheDataBeforeIt_andStillHandedOutInItsPlace() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receiveDataThenBarrier(channel, "a0", "a1");
        assertTrue(gate.priorityEventWakeUpFuture().isDone(), "the announcement counts as a priority event");

        BufferOrEvent announcement = gate.pollNext().orElseThrow();
        try {
            assertTrue(announcement.isAnnouncement(), "" + announcement);
            assertTrue(announcement.isEvent() && announcement.isPriority(), "an announcement is a priority event");
            assertEquals(0, announcement.channelIndex());
            assertEquals("barrier", utf8(announcement.data()), "the announced event's payload");
            assertTrue(announcement.announcedSequenceNumber() >= 0, "" + announcement.announcedSequenceNumber());
        } finally {
            announcement.recycle();
        }
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "nothing of priority left");
        assertEquals(List.of("0:a0", "0:a1", "0:event barrier"), takeAll(gate),
                "the event itself in its place, not an announcement");
        assertFalse(gate.prioritizeAnnounced(0, announcement.announcedSequenceNumber()),
                "taken in its place: nothing to move");
    }

    @Test
    void eachAnnouncedEventHasItsOwnNumber_andOtherEventsAreNotAnnounced() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receiveAnnounced(channel, 0, "first");
        channel.onBuffer(EventSerializer.blockingUserEvent(utf8("blocking")), 1, 0, false);
        receiveEvent(channel, 2, "plain", false);
        receiveAnnounced(channel, 3, "second");

        Element first = Element.take(gate);
        Element second = Element.take(gate);
        assertTrue(first.announcement() && second.announcement(), first + ", " + second);
        assertEquals(List.of("first", "second"), List.of(first.text(), second.text()));
        assertTrue(first.sequenceNumber() != second.sequenceNumber(), first + ", " + second);
        assertEquals(List.of("0:event first", "0:event blocking", "0:event plain", "0:event second"), takeAll(gate));
    }

    @Test
    void prioritizeAnnounced_movesTheEventAheadOfTheDataBeforeIt_whichThenFollowsInItsOrder() throws Exception {
        SingleInputGate gate = remote.gate(2, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RemoteInputChannel other = RemoteChannels.channel(gate, 1);
        receive(other, 0, "b0");
        receiveDataThenBarrier(channel, "a0", "a1");
        Element announcement = Element.take(gate);
        assertTrue(announcement.announcement(), "" + announcement);
        assertFalse(gate.priorityEventWakeUpFuture().isDone());

        assertTrue(gate.prioritizeAnnounced(0, announcement.sequenceNumber()));
        assertTrue(gate.priorityEventWakeUpFuture().isDone(), "the moved event is a priority event");
        Element moved = Element.take(gate);
        assertEquals(new Element(0, true, true, false, -1, "barrier"), moved,
                "ahead of channel 1's data queued earlier, and ahead of a0 and a1");
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "nothing of priority left");
        assertFalse(gate.prioritizeAnnounced(0, announcement.sequenceNumber()), "moved once only");

        receive(channel, 3, "a3"); // after the consumer resumed the producer
        List<String> rest = takeAll(gate);
        assertEquals(List.of("0:a0", "0:a1", "0:a3"), only(rest, 0), "the overtaken data, then the rest, in order");
        assertEquals(List.of("1:b0"), only(rest, 1));
    }

    @Test
    void prioritizeAnnounced_afterTheEventWasTaken_orForANumberNeverAnnounced_movesNothing() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receiveDataThenBarrier(channel, "a0");
        Element announcement = Element.take(gate);

        assertFalse(gate.prioritizeAnnounced(0, announcement.sequenceNumber() + 1), "no such announcement");
        assertEquals(List.of("0:a0", "0:event barrier"), takeAll(gate));
        assertFalse(gate.prioritizeAnnounced(0, announcement.sequenceNumber()), "the event was taken in its place");
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "a refused move announces nothing");
        assertThrows(IndexOutOfBoundsException.class, () -> gate.prioritizeAnnounced(1, 0));
    }

    @Test
    void aMovedEvent_endsPersistingWhereItWasReceived_theDataBeforeItIsPersistedOnce_nothingAfter()
            throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RecordingSink sink = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, sink);
        receiveDataThenBarrier(channel, "a0", "a1");

        Element announcement = Element.take(gate);
        assertEquals(List.of(), sink.texts(0), "an announcement is no event of the stream: it ends nothing");
        assertTrue(gate.prioritizeAnnounced(0, announcement.sequenceNumber()));
        assertEquals("0:priority barrier", take(gate));
        assertEquals(List.of("a0", "a1"), sink.texts(0), "the data the moved event overtook, at its take");
        receive(channel, 3, "a3");
        assertEquals(List.of("0:a0", "0:a1", "0:a3"), takeAll(gate));
        assertEquals(List.of("a0", "a1"), sink.texts(0), "each once, and nothing after the event");
    }

    @ParameterizedTest(name = "the moved event taken before the start: {0}")
    @ValueSource(booleans = {false, true})
    void persistingStartedAfterTheMove_handsTheDataTheMovedEventOvertook_atTheCallOnly(boolean takenFirst)
            throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receiveDataThenBarrier(channel, "a0", "a1");
        assertTrue(gate.prioritizeAnnounced(0, Element.take(gate).sequenceNumber()));
        List<String> taken = new ArrayList<>();
        if (takenFirst) {
            taken.add(take(gate)); // the barrier that starts the checkpoint
        }

        RecordingSink sink = RecordingSink.recyclingAtOnce();
        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0", "a1"), sink.texts(0), "the data held, received before the moved event");
        receive(channel, 3, "a3");
        taken.addAll(takeAll(gate));
        assertEquals(List.of("0:priority barrier", "0:a0", "0:a1", "0:a3"), taken);
        assertEquals(List.of("a0", "a1"), sink.texts(0), "nothing more");
    }

    @Test
    void anEventLeftInItsPlace_endsPersistingThere_asAnyHeldEvent() throws Exception {
        SingleInputGate gate = remote.gate(1, 8, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        receiveDataThenBarrier(channel, "a0");
        Element.take(gate);
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(List.of("a0"), sink.texts(0));
        assertEquals(List.of("0:a0", "0:event barrier"), takeAll(gate));
        assertEquals(List.of("a0"), sink.texts(0));
    }

    @Test
    void announcementsAndMovedEventsNeverTakenAreReleasedWithTheGate() throws Exception {
        SingleInputGate gate = remote.gate(2, 8, 0);
        RemoteInputChannel announcedOnly = RemoteChannels.channel(gate, 0);
        RemoteInputChannel moved = RemoteChannels.channel(gate, 1);
        receiveDataThenBarrier(announcedOnly, "a0");
        receiveDataThenBarrier(moved, "b0");
        List<Element> announcements = List.of(Element.take(gate), Element.take(gate));
        for (Element announcement : announcements) {
            if (announcement.channel() == 1) {
                assertTrue(gate.prioritizeAnnounced(1, announcement.sequenceNumber()));
            }
        }
        receiveAnnounced(announcedOnly, 2, "next"); // announced, never taken
        gate.close();
        // remote.close() (after each test) asserts that every segment is back in the global pool.
    }

    @Test
    void aUnion_prioritizesOnTheGateThatOwnsTheChannel() throws Exception {
        SingleInputGate first = remote.gate(1, 8, 0);
        SingleInputGate second = remote.gate(2, 8, 0);
        UnionInputGate union = new UnionInputGate(List.of(first, second));
        opened.add(union);
        RemoteInputChannel channel = RemoteChannels.channel(second, 1);
        receiveDataThenBarrier(channel, "c0");

        Element announcement = Element.take(union);
        assertTrue(announcement.announcement() && announcement.channel() == 2, "" + announcement);
        assertTrue(union.prioritizeAnnounced(2, announcement.sequenceNumber()));
        assertEquals(List.of("2:priority barrier", "2:c0"), takeAll(union));
        assertFalse(union.prioritizeAnnounced(0, announcement.sequenceNumber()), "channel 0 announced nothing");
    }

    @Test
    void aLocalChannel_announcesNothing_andItsEventStaysInPlace() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = localGates.setUpGate(0, partition.partitionId());
        opened.add(gate);
        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        partition.broadcastAnnouncedBlockingEvent(utf8("barrier"), (subpartition, outcome) -> { });
        partition.emitRecord(TestRecords.record(0, 1, PartitionFixture.ONE_BUFFER_RECORD), 0);
        partition.flushAll();

        GateElement data = GateElement.poll(gate);
        assertNotNull(data);
        assertFalse(data.isEvent(), "the record first: no announcement ahead of it");
        assertFalse(gate.prioritizeAnnounced(0, 0), "a local channel holds nothing it could move");
        BufferOrEvent event = gate.pollNext().orElseThrow();
        try {
            assertTrue(event.isEvent() && !event.isPriority() && !event.isAnnouncement(), "" + event);
            assertEquals("barrier", utf8(event.data()));
        } finally {
            event.recycle();
        }
        assertNull(GateElement.poll(gate), "the subpartition is blocked after the event until resumed");
        gate.resumeConsumption(0);
        GateElement after = GateElement.poll(gate);
        assertTrue(after != null && !after.isEvent(), "the record after the event, once resumed: " + after);
    }

    // --- helpers ---------------------------------------------------------------------------------------------------

    /** An element a gate handed out, copied; its buffer recycled. */
    private record Element(int channel, boolean event, boolean priority, boolean announcement, int sequenceNumber,
                           String text) {

        static Element take(InputGate gate) throws Exception {
            BufferOrEvent element = gate.pollNext().orElseThrow();
            try {
                return new Element(element.channelIndex(), element.isEvent(), element.isPriority(),
                        element.isAnnouncement(), element.announcedSequenceNumber(), utf8(element.data()));
            } finally {
                element.recycle();
            }
        }
    }

    /** The elements of {@code channel} among {@code taken}, in order. */
    private static List<String> only(List<String> taken, int channel) {
        List<String> of = new ArrayList<>();
        for (String each : taken) {
            if (each.startsWith(channel + ":")) {
                of.add(each);
            }
        }
        return of;
    }

    /** The event loop's part of the data buffers {@code data}, then of an announced event "barrier". */
    private static void receiveDataThenBarrier(RemoteInputChannel channel, String... data) {
        for (int i = 0; i < data.length; i++) {
            receive(channel, i, data[i]);
        }
        receiveAnnounced(channel, data.length, "barrier");
    }

    private static void receiveAnnounced(RemoteInputChannel channel, int sequenceNumber, String payload) {
        channel.onBuffer(EventSerializer.announcedBlockingUserEvent(utf8(payload)), sequenceNumber, 0, false);
    }
}
