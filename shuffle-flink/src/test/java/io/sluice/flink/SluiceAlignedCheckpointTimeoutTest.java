package io.sluice.flink;

import io.sluice.flink.testing.RecordingChannelStateWriter;
import io.sluice.testing.Await;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EventAnnouncement;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static io.sluice.flink.AdapterPair.flinkRecord;
import static io.sluice.flink.AdapterPair.framed;
import static io.sluice.flink.AdapterPair.pollWithin;
import static io.sluice.flink.AdapterPair.readRecords;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Aligned checkpoints that may time out into unaligned ones ({@code execution.checkpointing.aligned-checkpoint-timeout})
 * at the producer: the aligned barrier goes out in its place, and Flink's channel-state writer learns per
 * subpartition, through the future it waits on, that nothing was overtaken; when the producer's alignment times out
 * while the barrier is still queued, the unaligned barrier overtakes the data before it, which completes the future.
 */
class SluiceAlignedCheckpointTimeoutTest {

    private static final CheckpointOptions TIMEOUTABLE = CheckpointOptions.alignedWithTimeout(
            CheckpointType.CHECKPOINT, CheckpointStorageLocationReference.getDefault(), 10);
    private static final ResultSubpartitionInfo SUBPARTITION_0 = new ResultSubpartitionInfo(0, 0);
    /** Records that fill 8 buffers (512 records of 8 bytes a segment), within the partition's 10. */
    private static final int QUEUED_RECORDS = 8 * 512;

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void barrierSentInPlace_completesTheOutputFutureEmpty_andATimeoutAfterwardsChangesNothing(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(1, state);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            writer.emitRecord(flinkRecord(0), 0);
            writer.emitRecord(flinkRecord(1), 0);

            writer.broadcastEvent(new CheckpointBarrier(7, 0, TIMEOUTABLE), false);
            CompletableFuture<List<Buffer>> output = state.outputFuture(7, SUBPARTITION_0);
            if (link.equals("in-process")) {
                assertFalse(output.isDone(), "the barrier is still queued (over TCP it may have left already)");
            }
            // Over TCP the channel announces the barrier as soon as it arrives: before or among the records.
            List<Integer> records = new ArrayList<>();
            int announcements = 0;
            BufferOrEvent barrier = pollWithin(gate);
            while (!barrier.isEvent() || barrier.getEvent() instanceof EventAnnouncement) {
                if (barrier.isEvent()) {
                    announcements++;
                    assertEquals(7, assertInstanceOf(CheckpointBarrier.class,
                            ((EventAnnouncement) barrier.getEvent()).getAnnouncedEvent()).getId());
                } else {
                    records.addAll(AdapterPair.records(barrier));
                }
                barrier = pollWithin(gate);
            }
            assertEquals(List.of(0, 1), records);
            assertEquals(link.equals("nio") ? 1 : 0, announcements, "announced over TCP only");
            assertFalse(barrier.hasPriority(), "an aligned barrier, in its place");
            assertEquals(TIMEOUTABLE, assertInstanceOf(CheckpointBarrier.class, barrier.getEvent())
                    .getCheckpointOptions());
            Await.until(output::isDone, Duration.ofSeconds(20), () -> "the output future once the barrier left");
            assertEquals(List.of(), output.get(), "nothing overtaken");

            writer.alignedBarrierTimeout(7);
            assertEquals(0, state.buffers(), "nothing persisted");
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void timeoutWhileTheBarrierIsQueued_unalignedBarrierOvertakesTheDataBeforeIt_whichCompletesTheOutputFuture(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(1, state);
            // Not requested yet: everything stays queued at the producer, as under backpressure.
            SluiceInputGate gate = pair.unrequestedGate(new SluiceResultPartitionWriter[] {writer}, new int[] {0}, 0);
            for (int i = 0; i < QUEUED_RECORDS; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            writer.broadcastEvent(new CheckpointBarrier(7, 0, TIMEOUTABLE), false);
            writer.emitRecord(flinkRecord(QUEUED_RECORDS), 0);
            writer.flushAll();

            writer.alignedBarrierTimeout(7);

            assertTrue(state.outputFuture(7, SUBPARTITION_0).isDone(), "completed by the timeout, on the task thread");
            assertArrayEquals(framed(0, QUEUED_RECORDS), state.output(7, SUBPARTITION_0),
                    "the records queued before the barrier, in order, and not the one after it");
            gate.requestPartitions();
            BufferOrEvent first = pollWithin(gate);
            assertTrue(first.hasPriority(), "the barrier overtook the queued records");
            CheckpointBarrier barrier = assertInstanceOf(CheckpointBarrier.class, first.getEvent());
            assertEquals(7, barrier.getId());
            assertTrue(barrier.getCheckpointOptions().isUnalignedCheckpoint(), "the barrier turned unaligned");
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i <= QUEUED_RECORDS; i++) {
                expected.add(i);
            }
            assertEquals(expected, readRecords(gate, QUEUED_RECORDS + 1),
                    "every record once, in order, without waiting for a resume, and no aligned barrier among them");
            writer.close();
            gate.close();
        }
    }

    @Test
    void abortedCheckpoint_failsTheOutputFuture_andItsBarrierStillGoesOutInPlace() throws Exception {
        try (AdapterPair pair = new AdapterPair("in-process")) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(1, state);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            writer.emitRecord(flinkRecord(0), 0);
            writer.broadcastEvent(new CheckpointBarrier(7, 0, TIMEOUTABLE), false);
            CheckpointException cause = new CheckpointException(CheckpointFailureReason.CHECKPOINT_DECLINED);

            writer.abortCheckpoint(7, cause);
            writer.alignedBarrierTimeout(7);

            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> state.outputFuture(7, SUBPARTITION_0).get());
            assertSame(cause, failed.getCause());
            assertEquals(List.of(0), readRecords(gate, 1));
            BufferOrEvent barrier = pollWithin(gate);
            assertFalse(barrier.hasPriority(), "a timeout after the abort moves nothing");
            assertEquals(7, assertInstanceOf(CheckpointBarrier.class, barrier.getEvent()).getId());
            writer.close();
            gate.close();
        }
    }

    @Test
    void writerReleasedWhileTheBarrierIsQueued_failsTheOutputFuture_namingThePartition() throws Exception {
        try (AdapterPair pair = new AdapterPair("in-process")) {
            RecordingChannelStateWriter state = new RecordingChannelStateWriter();
            SluiceResultPartitionWriter writer = pair.writer(2, state);
            writer.broadcastEvent(new CheckpointBarrier(7, 0, TIMEOUTABLE), false);

            writer.release(new RuntimeException("task failed"));

            for (int i = 0; i < 2; i++) {
                CompletableFuture<List<Buffer>> output = state.outputFuture(7, new ResultSubpartitionInfo(0, i));
                Await.until(output::isDone, Duration.ofSeconds(20), () -> "the output future after the release");
                ExecutionException failed = assertThrows(ExecutionException.class, output::get);
                assertTrue(failed.getCause().getMessage().contains(writer.getPartitionId().toString()),
                        failed.getCause().getMessage());
            }
            assertEquals(0, state.buffers());
        }
    }
}
