package io.sluice.flink;

import io.sluice.flink.testing.RecordingChannelStateWriter;
import io.sluice.testing.Await;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.SubtaskConnectionDescriptor;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.BufferBuilder;
import org.apache.flink.runtime.io.network.partition.consumer.EndOfOutputChannelStateEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.RecoveredInputChannel;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.taskmanager.InputGateWithMetrics;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.flink.AdapterPair.flinkRecord;
import static io.sluice.flink.AdapterPair.framed;
import static io.sluice.flink.AdapterPair.pollWithin;
import static io.sluice.flink.AdapterPair.readOne;
import static io.sluice.flink.AdapterPair.readRecords;
import static io.sluice.flink.AdapterPair.readUntilEvent;
import static io.sluice.flink.AdapterPair.records;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unaligned checkpoints through the adapter, in-process and over TCP: what an unaligned barrier overtakes at the
 * producer and what comes before it at the consumer reaches Flink's channel-state writer exactly once, in order; and
 * what Flink's channel-state reader restores goes out (producer) or is handed to the task (consumer) before any live
 * data.
 */
class SluiceUnalignedCheckpointTest {

    private static final CheckpointOptions UNALIGNED = CheckpointOptions.unaligned(CheckpointType.CHECKPOINT,
            CheckpointStorageLocationReference.getDefault());
    private static final ResultSubpartitionInfo SUBPARTITION_0 = new ResultSubpartitionInfo(0, 0);
    private static final InputChannelInfo CHANNEL_0 = new InputChannelInfo(0, 0);

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void unalignedBarrier_handsTheRecordsItOvertook_toTheChannelStateWriter_andTheConsumerStillGetsThemAfterIt(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(1, state);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            for (int i = 0; i < 5; i++) {
                writer.emitRecord(flinkRecord(i), 0); // not flushed: all still queued at the producer
            }

            writer.broadcastEvent(new CheckpointBarrier(7, 0, UNALIGNED), true);
            writer.emitRecord(flinkRecord(5), 0);
            writer.flushAll();

            // Over TCP the buffer finished for the barrier may leave before the barrier is queued: what left before
            // it reaches the consumer before it (the consumer's to persist), the rest is overtaken.
            List<Integer> records = new ArrayList<>();
            AbstractEvent barrier = readUntilEvent(gate, records);
            int sentBefore = records.size();
            assertEquals(7, assertInstanceOf(CheckpointBarrier.class, barrier).getId());
            assertArrayEquals(framed(sentBefore, 5), state.output(7, SUBPARTITION_0),
                    "the records the barrier overtook: all not sent before it (" + sentBefore + " were)");
            records.addAll(readRecords(gate, 6 - sentBefore));
            assertEquals(List.of(0, 1, 2, 3, 4, 5), records, "every record once, in order");
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void checkpointStarted_everyRecordBeforeTheChannelsBarrierIsPersistedOnce_atTheProducerOrTheConsumer(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(1, state);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            gate.setChannelStateWriter(state);
            for (int i = 0; i < 5; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            writer.flushAll();
            Await.until(() -> gate.getAvailableFuture().isDone(), java.time.Duration.ofSeconds(20),
                    () -> "the flushed records at the gate");

            // Another input's barrier started the checkpoint; this channel's comes later, behind more records.
            // Flink's task calls the checkpoint hooks through its wrapper of the gate, which calls them per channel.
            IndexedInputGate asTheTaskSeesIt = new InputGateWithMetrics(gate, new SimpleCounter());
            asTheTaskSeesIt.checkpointStarted(new CheckpointBarrier(7, 0, UNALIGNED));
            writer.emitRecord(flinkRecord(5), 0);
            writer.emitRecord(flinkRecord(6), 0);
            writer.broadcastEvent(new CheckpointBarrier(7, 0, UNALIGNED), true);
            writer.emitRecord(flinkRecord(7), 0);
            writer.flushAll();
            List<Integer> records = new ArrayList<>();
            AbstractEvent barrier = readUntilEvent(gate, records);
            assertEquals(7, assertInstanceOf(CheckpointBarrier.class, barrier).getId());
            records.addAll(readRecords(gate, 8 - records.size()));
            asTheTaskSeesIt.checkpointStopped(7);

            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), records, "the task reads every record once, in order");
            ByteArrayOutputStream persisted = new ByteArrayOutputStream();
            persisted.writeBytes(state.input(7, CHANNEL_0)); // what reached the consumer before the barrier
            persisted.writeBytes(state.output(7, SUBPARTITION_0)); // what the barrier overtook at the producer
            assertArrayEquals(framed(0, 7), persisted.toByteArray(),
                    "records 0-6 persisted once, in stream order, and record 7 (after the barrier) not at all");
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void recoveredOutput_goesOutBeforeNewRecords_thenTheEndOfRecoveredOutput_afterWhichTheConsumerMustResume(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            BufferBuilder builder = writer.requestBufferBuilderBlocking();
            builder.appendAndCommit(ByteBuffer.wrap(framed(100, 103)));
            builder.finish();
            writer.addRecovered(0, EventSerializer.toBufferConsumer(new SubtaskConnectionDescriptor(0, 0), false));
            writer.addRecovered(0, builder.createBufferConsumerFromBeginning());
            builder.close();
            writer.finishReadRecoveredState(true);
            writer.emitRecord(flinkRecord(1), 0);
            writer.flushAll();

            assertInstanceOf(SubtaskConnectionDescriptor.class, pollWithin(gate).getEvent());
            List<Integer> records = new ArrayList<>();
            assertInstanceOf(EndOfOutputChannelStateEvent.class, readUntilEvent(gate, records));
            assertEquals(List.of(100, 101, 102), records, "the recovered records first");
            Await.holdsThroughout(() -> gate.pollNext().isEmpty(),
                    "the subpartition sends nothing more until its consumer resumes it");
            gate.resumeConsumption(CHANNEL_0);
            assertEquals(List.of(1), readRecords(gate, 1), "then the new records");
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void recoveredInput_handedToTheGatesChannel_reachesTheTaskBeforeTheLiveRecords_thenTheStateIsConsumed(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.recoveringGate(new SluiceResultPartitionWriter[] {writer}, new int[] {0}, 0);
            RecoveredInputChannel channel = assertInstanceOf(RecoveredInputChannel.class, gate.getChannel(0),
                    "Flink's channel-state reader restores input only into recovered channels");
            channel.onRecoveredStateBuffer(EventSerializer.toBuffer(new SubtaskConnectionDescriptor(0, 0), false));
            Buffer recovered = channel.requestBufferBlocking();
            byte[] bytes = framed(100, 103);
            recovered.getMemorySegment().put(0, bytes);
            recovered.setSize(bytes.length);
            channel.onRecoveredStateBuffer(recovered);
            writer.emitRecord(flinkRecord(1), 0);
            writer.flushAll();

            assertTrue(gate.getAvailableFuture().isDone(), "recovered input makes the gate available");
            assertInstanceOf(SubtaskConnectionDescriptor.class, gate.pollNext().orElseThrow().getEvent());
            assertEquals(List.of(100, 101, 102), records(gate.pollNext().orElseThrow()));
            assertTrue(gate.pollNext().isEmpty());
            assertFalse(gate.getStateConsumedFuture().isDone(), "the reader has not said it is done");
            gate.finishReadRecoveredState();
            assertTrue(gate.pollNext().isEmpty());
            assertTrue(gate.getStateConsumedFuture().isDone(), "every recovered element taken");
            gate.requestPartitions();
            assertEquals(List.of(1), readRecords(gate, 1), "then the live records");
            writer.close();
            gate.close();
        }
    }
}
