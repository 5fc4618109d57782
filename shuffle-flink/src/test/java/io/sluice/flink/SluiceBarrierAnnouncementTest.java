package io.sluice.flink;

import io.sluice.flink.testing.RecordingChannelStateWriter;
import io.sluice.testing.Await;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EventAnnouncement;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.taskmanager.InputGateWithMetrics;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.flink.AdapterPair.flinkRecord;
import static io.sluice.flink.AdapterPair.framed;
import static io.sluice.flink.AdapterPair.pollWithin;
import static io.sluice.flink.AdapterPair.readRecords;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer's side of aligned checkpoints that may time out into unaligned ones
 * ({@code execution.checkpointing.aligned-checkpoint-timeout}), in-process and over TCP: a barrier that arrives over
 * the network is announced to Flink as its {@link EventAnnouncement} ahead of the records before it, and Flink's
 * {@code convertToPriorityEvent} (through its gate wrapper, channel by channel) moves the aligned barrier ahead of
 * them; the records before it are persisted once, those after it never, and the task still reads every record once,
 * in order. An in-process channel announces nothing: Flink finds its barrier in place.
 */
class SluiceBarrierAnnouncementTest {

    private static final CheckpointOptions TIMEOUTABLE = CheckpointOptions.alignedWithTimeout(
            CheckpointType.CHECKPOINT, CheckpointStorageLocationReference.getDefault(), 10);
    private static final InputChannelInfo CHANNEL_0 = new InputChannelInfo(0, 0);
    /** Records that fill one buffer exactly (8 bytes each): the buffer is finished before the barrier is queued. */
    private static final int RECORDS_BEFORE = AdapterPair.SEGMENT_SIZE / 8;

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void aBarrierReceivedOverTheNetwork_isAnnounced_andConvertToPriorityEventMovesItAheadOfTheRecordsBeforeIt(
            String link) throws Exception {
        boolean remote = !"in-process".equals(link);
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            gate.setChannelStateWriter(state);
            IndexedInputGate asTheTaskSeesIt = new InputGateWithMetrics(gate, new SimpleCounter());
            for (int i = 0; i < RECORDS_BEFORE; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            CheckpointBarrier barrier = new CheckpointBarrier(7, 0, TIMEOUTABLE);
            writer.broadcastEvent(barrier, false);
            writer.emitRecord(flinkRecord(RECORDS_BEFORE), 0);
            writer.flushAll();

            List<Integer> records = new ArrayList<>();
            if (remote) {
                Await.until(() -> gate.getPriorityEventAvailableFuture().isDone(), Duration.ofSeconds(20),
                        () -> "the announcement at the gate");
                BufferOrEvent announcement = gate.pollNext().orElseThrow();
                assertTrue(announcement.hasPriority(), "an announcement is a priority event");
                EventAnnouncement announced = assertInstanceOf(EventAnnouncement.class, announcement.getEvent());
                assertEquals(barrier, announced.getAnnouncedEvent(), "the aligned barrier, announced");
                assertFalse(gate.getPriorityEventAvailableFuture().isDone());

                // Flink's alignment timed out: the checkpoint goes on unaligned, and the barrier is moved.
                asTheTaskSeesIt.checkpointStarted(barrier);
                asTheTaskSeesIt.convertToPriorityEvent(0, announced.getSequenceNumber());
                assertTrue(gate.getPriorityEventAvailableFuture().isDone(), "the moved barrier is a priority event");
                BufferOrEvent moved = gate.pollNext().orElseThrow();
                assertTrue(moved.hasPriority());
                assertEquals(barrier, moved.getEvent(), "still the aligned barrier: only its position changed");
                assertArrayEquals(framed(0, RECORDS_BEFORE), state.input(7, CHANNEL_0),
                        "the records the barrier overtook in the channel, once");
                records.addAll(readRecords(gate, RECORDS_BEFORE - records.size()));
            } else {
                asTheTaskSeesIt.checkpointStarted(barrier);
                records.addAll(readRecords(gate, RECORDS_BEFORE - records.size()));
                BufferOrEvent inPlace = pollWithin(gate);
                assertFalse(inPlace.hasPriority(), "no announcement in-process: the barrier in its place");
                assertEquals(barrier, inPlace.getEvent());
                asTheTaskSeesIt.convertToPriorityEvent(0, 0); // nothing to move, as for Flink's local channels
                assertArrayEquals(framed(0, RECORDS_BEFORE), state.input(7, CHANNEL_0),
                        "the records taken before the barrier, once");
            }
            assertTrue(gate.pollNext().isEmpty(), "the producer sends nothing after the barrier until resumed");

            gate.resumeConsumption(CHANNEL_0);
            records.addAll(readRecords(gate, RECORDS_BEFORE + 1 - records.size()));
            asTheTaskSeesIt.checkpointStopped(7);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i <= RECORDS_BEFORE; i++) {
                expected.add(i);
            }
            assertEquals(expected, records, "every record once, in order");
            assertArrayEquals(framed(0, RECORDS_BEFORE), state.input(7, CHANNEL_0), "nothing after the barrier");
            writer.close();
            gate.close();
        }
    }
}
