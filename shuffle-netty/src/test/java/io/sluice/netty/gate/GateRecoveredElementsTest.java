package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.GateMetrics;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.UnionInputGate;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.BackgroundTask;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Recovered elements queued with {@code InputGate.addRecovered} (docs/contract.md section 11): handed out as they
 * are, in the order of the calls, before any live data of their channel, also before {@code setup()}; counted as
 * taken; recycled by the gate when never handed out. And a {@link UnionInputGate} over such gates, which numbers the
 * channels of recovered and persisted buffers in its own channel space.
 */
@Timeout(30)
class GateRecoveredElementsTest {

    private final PartitionFixture fixture = new PartitionFixture();
    private final LocalGates gates = new LocalGates(fixture);
    private final List<InputGate> opened = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (InputGate gate : opened) {
            gate.close();
        }
        fixture.close();
    }

    @Test
    void recoveredElementsAddedBeforeSetup_areHandedOutAsTheyAre_first_thenTheLiveData() throws Exception {
        ResultPartition p0 = fixture.setUpPartition(1);
        ResultPartition p1 = fixture.setUpPartition(1);
        SingleInputGate gate = gate(p0, p1);
        p0.emitRecord(TestRecords.record(0, 0, 10), 0);
        p0.flushAll();
        CompletableFuture<?> wakeUp = gate.wakeUpFuture();
        assertFalse(wakeUp.isDone(), "nothing to hand out before setup");
        RecoveredElement r0 = RecoveredElement.buffer(0, "r0");
        RecoveredElement e0 = RecoveredElement.event(0, "e0");
        RecoveredElement r1 = RecoveredElement.buffer(1, "r1");

        gate.addRecovered(r0);
        assertTrue(wakeUp.isDone(), "a recovered element makes the gate available");
        gate.addRecovered(e0);
        gate.addRecovered(r1);

        assertSame(r0, gate.pollNext().orElseThrow(), "before setup, as it is");
        assertSame(e0, gate.pollNext().orElseThrow());
        assertSame(r1, gate.pollNext().orElseThrow());
        assertTrue(gate.pollNext().isEmpty(), "before setup the gate hands out recovered elements only");
        assertEquals(0, r0.recycles() + e0.recycles() + r1.recycles(), "the consumer recycles what it took");
        GateMetrics metrics = gate.metrics();
        assertEquals(2, metrics.buffersIn(), "recovered buffers count as taken");
        assertEquals(r0.length() + e0.length() + r1.length(), metrics.bytesIn());

        gate.setup();
        GateElement live = GateElement.next(gate);
        assertEquals(0, live.channel());
        assertFalse(live.isEvent(), "then the live data");
    }

    @Test
    void aRecoveredElement_goesBeforeLiveDataThatArrivedEarlier_andWakesAWaitingConsumer() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = gate(partition);
        gate.setup();
        partition.emitRecord(TestRecords.record(0, 0, 10), 0);
        partition.flushAll();
        RecoveredElement recovered = RecoveredElement.buffer(0, "recovered");

        gate.addRecovered(recovered);
        assertSame(recovered, gate.getNext().orElseThrow());
        assertFalse(GateElement.next(gate).isEvent());

        BackgroundTask<BufferOrEvent> consumer = BackgroundTask.start("consumer",
                () -> gate.getNext().orElseThrow());
        consumer.awaitParkedIn("getNext", Duration.ofSeconds(30));
        RecoveredElement late = RecoveredElement.event(0, "late");
        gate.addRecovered(late);
        assertSame(late, consumer.await());
    }

    @Test
    void recoveredElementsNeverHandedOut_areRecycledOnClose_andOnesAddedAfterTheCloseAtOnce() throws Exception {
        SingleInputGate gate = gate(fixture.setUpPartition(1));
        RecoveredElement taken = RecoveredElement.buffer(0, "taken");
        RecoveredElement left = RecoveredElement.buffer(0, "left");
        RecoveredElement leftEvent = RecoveredElement.event(0, "left event");
        gate.addRecovered(taken);
        gate.addRecovered(left);
        gate.addRecovered(leftEvent);
        assertSame(taken, gate.pollNext().orElseThrow());

        gate.close();
        assertEquals(0, taken.recycles(), "the consumer's to recycle");
        assertEquals(1, left.recycles());
        assertEquals(1, leftEvent.recycles());

        RecoveredElement afterClose = RecoveredElement.buffer(0, "after close");
        gate.addRecovered(afterClose);
        assertEquals(1, afterClose.recycles(), "ownership passed to a closed gate, which recycles it");
        gate.close();
        assertEquals(1, left.recycles(), "close is idempotent");
    }

    @Test
    void aChannelIndexOutsideTheGate_isRejected_andTheElementStaysTheCallers() throws Exception {
        SingleInputGate gate = gate(fixture.setUpPartition(1));
        RecoveredElement outside = RecoveredElement.buffer(1, "outside");
        IndexOutOfBoundsException error = assertThrows(IndexOutOfBoundsException.class,
                () -> gate.addRecovered(outside));
        assertTrue(error.getMessage().contains("channel 1"), error.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> gate.addRecovered(RecoveredElement.buffer(-1, "x")));
        gate.close();
        assertEquals(0, outside.recycles());
    }

    @Test
    void union_numbersRecoveredAndPersistedBuffersInItsOwnChannels() throws Exception {
        ResultPartition first = fixture.setUpPartition(1);
        ResultPartition second = fixture.setUpPartition(1);
        ResultPartition third = fixture.setUpPartition(1);
        SingleInputGate gate0 = gates.gate(0, first.partitionId());
        SingleInputGate gate1 = gates.gate(0, second.partitionId(), third.partitionId());
        UnionInputGate union = new UnionInputGate(List.of(gate0, gate1));
        opened.add(union);
        RecoveredElement recovered = RecoveredElement.buffer(2, "for the union's channel 2");

        union.addRecovered(recovered);
        assertThrows(IndexOutOfBoundsException.class, () -> union.addRecovered(RecoveredElement.buffer(3, "x")));
        union.setup();
        Optional<BufferOrEvent> next = union.pollNext();
        assertSame(recovered, next.orElseThrow(), "handed out as it is, with the union's channel index");
        assertEquals(2, next.get().channelIndex());

        RecordingSink sink = RecordingSink.recyclingAtOnce();
        union.startPersisting(TextElements.BARRIER, sink);
        third.emitRecord(TestRecords.record(2, 0, 10), 0);
        third.flushAll();
        first.emitRecord(TestRecords.record(0, 0, 10), 0);
        first.flushAll();
        List<Integer> channels = new ArrayList<>();
        for (Optional<BufferOrEvent> element = union.pollNext(); element.isPresent(); element = union.pollNext()) {
            channels.add(element.get().channelIndex());
            element.get().recycle();
        }
        union.stopPersisting();

        assertEquals(2, channels.size(), "" + channels);
        assertTrue(channels.containsAll(List.of(0, 2)), "" + channels);
        assertEquals(1, sink.texts(0).size(), "the union's channel 0 (gate 0's channel 0)");
        assertEquals(1, sink.texts(2).size(), "the union's channel 2 (gate 1's channel 1)");
        assertEquals(2, sink.persisted().size());
        // RecordingSink checks that every buffer it is handed names the channel it is handed for.
    }

    private SingleInputGate gate(ResultPartition... partitions) {
        ResultPartitionId[] ids = new ResultPartitionId[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            ids[i] = partitions[i].partitionId();
        }
        SingleInputGate gate = gates.gate(0, ids);
        opened.add(gate);
        return gate;
    }
}
