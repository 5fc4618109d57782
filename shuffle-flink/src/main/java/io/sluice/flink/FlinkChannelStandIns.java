package io.sluice.flink;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentProvider;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.LocalInputChannel;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.throughput.ThroughputCalculator;
import org.apache.flink.util.clock.SystemClock;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;

/**
 * THE Flink workaround, isolated here so that a Flink version bump touches this one file.
 *
 * <p>Flink's {@code InputGate.getChannel(int)} must return an {@link InputChannel}, and Flink's streaming runtime
 * asks those objects for the channel's identity: its {@code InputChannelInfo} and the subpartition indexes it
 * consumes (the watermark valve), and whether it has an error. {@link InputChannel} cannot be subclassed outside
 * Flink's package (it has package-private abstract methods), so this class builds, per channel, a stand-in: one of
 * Flink's public {@link LocalInputChannel}s on a dummy {@link SingleInputGate}, over an empty partition manager,
 * holding no memory, never set up and never asked for a partition. The stand-ins answer identity questions only: every read, resume, acknowledgement and event goes through
 * {@link SluiceInputGate} to Sluice, never through a stand-in.
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
     * @return one stand-in channel per channel, in channel order
     */
    static InputChannel[] create(String ownerName, int gateIndex, IntermediateDataSetID consumedResultId,
                                 ResultPartitionType partitionType, ResultPartitionID[] partitionIds,
                                 int[] subpartitions) {
        int channels = partitionIds.length;
        SingleInputGate dummyGate = new SingleInputGate(ownerName, gateIndex, consumedResultId, partitionType,
                channels, NO_PRODUCER_STATE, () -> {
                    throw new IllegalStateException("the stand-in gate of " + ownerName + " has no buffer pool");
                }, null, NO_MEMORY, 1, new ThroughputCalculator(SystemClock.getInstance()), null);
        ResultPartitionManager noPartitions = new ResultPartitionManager();
        TaskEventDispatcher noEvents = new TaskEventDispatcher();
        InputChannel[] standIns = new InputChannel[channels];
        for (int i = 0; i < channels; i++) {
            standIns[i] = localChannel(dummyGate, i, partitionIds[i],
                    new ResultSubpartitionIndexSet(subpartitions[i]), noPartitions, noEvents);
        }
        return standIns;
    }

    /**
     * One stand-in through whichever public {@link LocalInputChannel} constructor this Flink version has: Flink 2.3
     * added a last parameter (the channel's recovered buffers, empty here) to Flink 2.2's eleven, so the constructor is
     * chosen by its parameter count rather than compiled against one version.
     */
    private static LocalInputChannel localChannel(SingleInputGate gate, int index, ResultPartitionID partitionId,
                                                  ResultSubpartitionIndexSet subpartitions,
                                                  ResultPartitionManager partitions, TaskEventDispatcher events) {
        Object[] common = {gate, index, partitionId, subpartitions, partitions, events, 0, 0, new SimpleCounter(),
                new SimpleCounter(), ChannelStateWriter.NO_OP};
        Object[] arguments = LOCAL_CHANNEL.getParameterCount() == common.length
                ? common
                : appended(common, new ArrayDeque<>());
        try {
            return (LocalInputChannel) LOCAL_CHANNEL.newInstance(arguments);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build Flink's LocalInputChannel as a stand-in channel for gate "
                    + gate + " with " + LOCAL_CHANNEL + "; this Flink version is not one shuffle-flink supports "
                    + "(docs/flink.md, \"Flink versions\")", e);
        }
    }

    private static Object[] appended(Object[] first, Object last) {
        Object[] all = Arrays.copyOf(first, first.length + 1);
        all[first.length] = last;
        return all;
    }

    /** The public constructor with the parameters of Flink 2.2 (eleven) or Flink 2.3 (those and one more). */
    private static final Constructor<?> LOCAL_CHANNEL = localChannelConstructor();

    private static Constructor<?> localChannelConstructor() {
        for (Constructor<?> constructor : LocalInputChannel.class.getConstructors()) {
            Class<?>[] parameters = constructor.getParameterTypes();
            if ((parameters.length == 11 || parameters.length == 12) && parameters[0] == SingleInputGate.class
                    && parameters[10] == ChannelStateWriter.class
                    && (parameters.length == 11 || parameters[11] == ArrayDeque.class)) {
                return constructor;
            }
        }
        throw new IllegalStateException("Flink's LocalInputChannel has none of the public constructors of Flink 2.2 "
                + "or 2.3 (" + Arrays.toString(LocalInputChannel.class.getConstructors()) + "); this Flink version "
                + "is not one shuffle-flink supports (docs/flink.md, \"Flink versions\")");
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
