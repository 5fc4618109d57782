package io.sluice.flinkpeer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.deployment.InputGateDeploymentDescriptor;
import org.apache.flink.runtime.deployment.ResultPartitionDeploymentDescriptor;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptorFactory.ShuffleDescriptorAndIndex;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.io.network.NettyShuffleEnvironment;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.shuffle.NettyShuffleDescriptor;
import org.apache.flink.runtime.shuffle.PartitionDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleIOOwnerContext;
import org.apache.flink.util.concurrent.ScheduledExecutorServiceAdapter;

/**
 * A producing and a consuming Flink TaskManager network stack in this JVM, talking over 127.0.0.1: two
 * {@link NettyShuffleEnvironment}s made by {@link NettyShuffleServiceFactory#createShuffleEnvironment} exactly as a
 * TaskManager makes its own (default configuration: 32 KiB segments, 2 exclusive buffers per channel, 8 floating
 * per gate, one slot, so one Netty server and one client thread each). Partitions and gates come from
 * {@code createResultPartitionWriters} and {@code createInputGates} with deployment descriptors as the
 * JobManager would ship them, and gates are started as a StreamTask starts them ({@link #openGates}).
 *
 * <p>Threads: built, used for wiring and closed by the figure's main thread; the partitions and gates it hands out
 * then belong to the figure's producer and consumer threads.
 */
final class TaskManagerPair implements AutoCloseable {

    private static final ResultPartitionType PIPELINED_BOUNDED = ResultPartitionType.PIPELINED_BOUNDED;
    /** The most a gate may take to consume its (empty) recovered state before we call it stuck. */
    private static final long RECOVERY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final ResourceID producerId = ResourceID.generate();
    private final ResourceID consumerId = ResourceID.generate();
    private final IntermediateDataSetID dataSet = new IntermediateDataSetID();
    private final List<ExecutorService> executors = new ArrayList<>();
    private final NettyShuffleEnvironment producer;
    private final NettyShuffleEnvironment consumer;
    private final int producerPort;

    /**
     * @param config the TaskManager configuration both sides read (defaults unless a figure changes them)
     * @param networkMemory network memory of each TaskManager
     * @throws IOException when a Netty server cannot start
     */
    TaskManagerPair(Configuration config, MemorySize networkMemory) throws IOException {
        producer = environment(config, producerId, networkMemory);
        consumer = environment(config, consumerId, networkMemory);
        producerPort = producer.start();
        consumer.start();
    }

    private NettyShuffleEnvironment environment(Configuration config, ResourceID id, MemorySize memory) {
        ExecutorService ioExecutor = Executors.newCachedThreadPool(daemons("flink-io-" + id));
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(daemons("flink-timer-" + id));
        executors.add(ioExecutor);
        executors.add(scheduler);
        ShuffleEnvironmentContext context = new ShuffleEnvironmentContext(
                config,
                id,
                memory,
                false,           // not local-only: a real NettyConnectionManager
                loopback,
                1,               // slots
                new String[] {System.getProperty("java.io.tmpdir")},
                new TaskEventDispatcher(),
                UnregisteredMetricGroups.createUnregisteredTaskManagerMetricGroup(),
                ioExecutor,
                new ScheduledExecutorServiceAdapter(scheduler));
        return new NettyShuffleServiceFactory().createShuffleEnvironment(context);
    }

    /** The consuming TaskManager's environment. */
    NettyShuffleEnvironment consumer() {
        return consumer;
    }

    /**
     * Creates and sets up one pipelined-bounded partition on the producing TaskManager.
     *
     * @param index this partition's number within the data set
     * @param partitions how many partitions the data set has
     * @param subpartitions subpartitions of this partition
     */
    ResultPartition partition(int index, int partitions, int subpartitions) throws IOException {
        ResultPartitionID id = new ResultPartitionID(
                new IntermediateResultPartitionID(dataSet, index), ExecutionAttemptID.randomId());
        PartitionDescriptor partition = new PartitionDescriptor(dataSet, partitions, id.getPartitionId(),
                PIPELINED_BOUNDED, subpartitions, 0, false, true, false);
        ResultPartitionDeploymentDescriptor deployment =
                new ResultPartitionDeploymentDescriptor(partition, descriptor(id), 128);
        ResultPartition writer = producer.createResultPartitionWriters(
                owner(producer, "producer-task-" + index), List.of(deployment)).get(0);
        writer.setup();
        return writer;
    }

    /**
     * Creates {@code gates} gates on the consuming TaskManager and starts them. Gate g reads subpartition g of
     * every partition given, a remote channel each.
     */
    List<SingleInputGate> openGates(List<ResultPartition> partitions, int gates) throws IOException {
        List<InputGateDeploymentDescriptor> deployments = new ArrayList<>();
        for (int g = 0; g < gates; g++) {
            ShuffleDescriptorAndIndex[] channels = new ShuffleDescriptorAndIndex[partitions.size()];
            for (int c = 0; c < channels.length; c++) {
                channels[c] = new ShuffleDescriptorAndIndex(descriptor(partitions.get(c).getPartitionId()), c);
            }
            deployments.add(new InputGateDeploymentDescriptor(dataSet, PIPELINED_BOUNDED, g, channels));
        }
        List<SingleInputGate> created = consumer.createInputGates(owner(consumer, "consumer-task"),
                (dataSetId, partitionId, responseHandle) -> { }, deployments);
        for (SingleInputGate gate : created) {
            start(gate);
        }
        return created;
    }

    /**
     * What StreamTask does before it reads a gate: set up its buffers, give it a channel-state writer (none here:
     * no checkpoints), let it read the recovered channel state (empty on a fresh start, but its channels begin as
     * "recovered" channels and only become remote channels once that state is consumed), then request the
     * partitions.
     */
    private static void start(SingleInputGate gate) throws IOException {
        gate.setup();
        gate.setChannelStateWriter(ChannelStateWriter.NO_OP);
        gate.finishReadRecoveredState();
        long giveUpAt = System.nanoTime() + RECOVERY_TIMEOUT_NANOS;
        while (!gate.getStateConsumedFuture().isDone()) {
            try {
                if (gate.pollNext().isPresent()) {
                    throw new IllegalStateException("gate " + gate.getGateIndex()
                            + " returned data while reading an empty recovered state");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting gate " + gate.getGateIndex(), e);
            }
            if (System.nanoTime() > giveUpAt) {
                throw new IllegalStateException("gate " + gate.getGateIndex() + " did not consume its recovered "
                        + "state within " + TimeUnit.NANOSECONDS.toSeconds(RECOVERY_TIMEOUT_NANOS) + " s");
            }
        }
        gate.requestPartitions();
    }

    private NettyShuffleDescriptor descriptor(ResultPartitionID id) {
        return new NettyShuffleDescriptor(producerId,
                new NettyShuffleDescriptor.NetworkPartitionConnectionInfo(
                        new InetSocketAddress(loopback, producerPort), 0),
                id);
    }

    private static ShuffleIOOwnerContext owner(NettyShuffleEnvironment environment, String task) {
        return environment.createShuffleIOOwnerContext(task, ExecutionAttemptID.randomId(),
                UnregisteredMetricGroups.createUnregisteredTaskMetricGroup());
    }

    private static ThreadFactory daemons(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Closes both environments (consumer first) and their executors. */
    @Override
    public void close() {
        try {
            consumer.close();
        } catch (Exception e) {
            System.err.println("# closing the consuming environment failed: " + e);
        }
        try {
            producer.close();
        } catch (Exception e) {
            System.err.println("# closing the producing environment failed: " + e);
        }
        for (ExecutorService executor : executors) {
            executor.shutdownNow();
        }
    }
}
