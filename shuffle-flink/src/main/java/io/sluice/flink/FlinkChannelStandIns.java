package io.sluice.flink;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentProvider;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SluiceChannel;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.throughput.ThroughputCalculator;
import org.apache.flink.util.clock.SystemClock;

import java.io.IOException;
import java.util.Collection;

/**
 * THE Flink workaround, isolated here and in {@link SluiceChannel} (the one shuffle-flink class in a Flink package)
 * so that a Flink version bump touches these two files.
 *
 * <p>Flink's {@code InputGate.getChannel(int)} must return an {@link InputChannel}, and Flink's streaming runtime
 * asks those objects for the channel's identity: its {@code InputChannelInfo} and the subpartition indexes it
 * consumes (the watermark valve), and whether it has an error. Flink's channel-state reader, restoring an unaligned
 * checkpoint, also needs them to be Flink {@code RecoveredInputChannel}s, into which it hands the recovered input.
 * {@link InputChannel} cannot be subclassed outside Flink's package (it has package-private abstract methods), so
 * this class builds, per channel, a {@link SluiceChannel} on a dummy {@link SingleInputGate} that holds no memory
 * and is never set up. The channels answer identity questions and pass recovered input and Flink's checkpoint calls
 * to the gate; every read, resume, acknowledgement and event goes through {@link SluiceInputGate} to Sluice.
 *
 * <p>Built once per gate at gate creation; immutable afterwards; any thread.
 */
final class FlinkChannelStandIns {

    private FlinkChannelStandIns() {
    }

    /**
     * @param ownerName         the consuming task, for Flink's logs
     * @param gateIndex         the gate's index in its task
     * @param consumedResultId  the intermediate result the gate reads
     * @param partitionType     the type of the partitions it reads
     * @param partitionIds      Flink's partition id of each channel, in channel order
     * @param subpartitions     the subpartition index each channel consumes, in channel order; for a channel that
     *                          reads a range, its first index: Flink's watermark valve, the one reader of this
     *                          identity, keys a range channel's watermarks by the subpartition each came from, which
     *                          only Flink's own partitions write into them; Sluice's carry plain watermarks, so the
     *                          valve treats a range channel as one input, as Sluice reads it (one stream)
     * @param gate              where the channels pass recovered input and Flink's checkpoint calls
     * @return one stand-in channel per channel, in channel order
     */
    static InputChannel[] create(String ownerName, int gateIndex, IntermediateDataSetID consumedResultId,
                                 ResultPartitionType partitionType, ResultPartitionID[] partitionIds,
                                 int[] subpartitions, SluiceChannel.Target gate) {
        int channels = partitionIds.length;
        SingleInputGate dummyGate = new SingleInputGate(ownerName, gateIndex, consumedResultId, partitionType,
                channels, NO_PRODUCER_STATE, () -> {
                    throw new IllegalStateException("the stand-in gate of " + ownerName + " has no buffer pool");
                }, null, NO_MEMORY, 1, new ThroughputCalculator(SystemClock.getInstance()), null);
        InputChannel[] standIns = new InputChannel[channels];
        for (int i = 0; i < channels; i++) {
            standIns[i] = new SluiceChannel(dummyGate, i, partitionIds[i],
                    new ResultSubpartitionIndexSet(subpartitions[i]), gate);
        }
        return standIns;
    }

    private static final PartitionProducerStateProvider NO_PRODUCER_STATE = (resultId, partitionId, callback) -> {
        throw new IllegalStateException("the stand-in gate never asks for a producer's state");
    };

    private static final MemorySegmentProvider NO_MEMORY = new MemorySegmentProvider() {
        @Override
        public Collection<MemorySegment> requestUnpooledMemorySegments(int numberOfSegmentsToRequest)
                throws IOException {
            throw new IOException("the stand-in gate holds no memory");
        }

        @Override
        public void recycleUnpooledMemorySegments(Collection<MemorySegment> segments) {
        }
    };
}
