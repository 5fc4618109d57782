package io.sluice.netty.testing;

import io.netty.channel.epoll.Epoll;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.NettyShuffleEnvironmentBuilder;
import io.sluice.netty.NettyShuffleServiceFactory;
import io.sluice.netty.transport.ChannelPipelineHook;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

/**
 * Environments of the Netty shuffle service for one test, made through the public factory, plus its shuffle master
 * for descriptors. {@link #close()} closes every environment and asserts that each has all its segments back
 * (docs/behaviours.md H-1); every environment test ends with it.
 *
 * <p>Test thread only.
 */
public final class EnvironmentFixture implements AutoCloseable {

    /** The smallest segment the options allow: small records already span buffers. */
    public static final long SEGMENT_SIZE = 4096;

    /** A record that fills one segment of {@link #SEGMENT_SIZE} exactly with its 4-byte length. */
    public static final int ONE_BUFFER_RECORD = (int) SEGMENT_SIZE - 4;

    /** Where descriptors say the producers live; in-process channels never connect to it. */
    private static final InetSocketAddress NO_TRANSPORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);

    private final NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
    private final ShuffleMaster master = factory.createShuffleMaster(ShuffleConfig.empty());
    private final List<ShuffleEnvironment> environments = new ArrayList<>();
    private int created;

    /**
     * Emits records {@code first..first+count-1} of stream 0 to subpartition 0, each filling one buffer of
     * {@link #SEGMENT_SIZE} (so each is finished as it fills), and flushes. Producer thread.
     */
    public static void emitWholeBuffers(ResultPartitionWriter writer, int first, int count) throws IOException {
        for (int i = first; i < first + count; i++) {
            writer.emitRecord(TestRecords.record(0, i, ONE_BUFFER_RECORD), 0);
        }
        writer.flushAll();
    }

    /**
     * A config for in-process tests: {@code segments} segments of {@link #SEGMENT_SIZE} bytes, no automatic flush
     * (only explicit flushes make data readable), and short request backoffs.
     */
    public static ShuffleConfig config(int segments) {
        return ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, SEGMENT_SIZE)
                .with(ShuffleOptions.MEMORY_TOTAL, segments * SEGMENT_SIZE)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, PartitionBuilder.NO_AUTOMATIC_FLUSH)
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, Duration.ofMillis(5))
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofMillis(20));
    }

    /** An environment without transport, with the memory {@code config} names. */
    public ShuffleEnvironment localEnvironment(ShuffleConfig config) {
        return environment(config, true);
    }

    /** An environment with the memory {@code config} names; the transport is not started. */
    public ShuffleEnvironment environment(ShuffleConfig config, boolean localCommunicationOnly) {
        return environment(config, localCommunicationOnly, ChannelPipelineHook.NONE);
    }

    /** The same, with {@code hook} shown every connection of the environment's transport. */
    public ShuffleEnvironment environment(ShuffleConfig config, boolean localCommunicationOnly,
                                          ChannelPipelineHook hook) {
        ShuffleEnvironmentContext context = new ShuffleEnvironmentContext(config, new ResourceId("env-" + created++),
                config.get(ShuffleOptions.MEMORY_TOTAL), localCommunicationOnly, InetAddress.getLoopbackAddress());
        ShuffleEnvironment environment = new NettyShuffleEnvironmentBuilder(context).pipelineHook(hook).build();
        environments.add(environment);
        return environment;
    }

    /**
     * A started environment whose gates read its own producers over {@code path}: {@code in-process} (local
     * channels, no transport), or a transport ({@code nio}, {@code epoll}, {@code local}) with local channels off.
     * The test is skipped for {@code epoll} where epoll does not load.
     */
    public ShuffleEnvironment startedEnvironment(String path, ShuffleConfig config) throws Exception {
        ShuffleEnvironment environment;
        if ("in-process".equals(path)) {
            environment = localEnvironment(config);
        } else {
            Assumptions.assumeTrue(!"epoll".equals(path) || Epoll.isAvailable(), "epoll does not load here");
            environment = environment(config.with(ShuffleOptions.NETTY_TRANSPORT, path)
                    .with(ShuffleOptions.INPUT_LOCAL_CHANNELS, false), false);
        }
        environment.start();
        return environment;
    }

    /** The descriptor the shuffle master makes for a partition that {@code producer} produces. */
    public ShuffleDescriptor descriptor(ShuffleEnvironment producer, ResultPartitionId partitionId,
                                        int subpartitions) {
        return descriptor(producer.resourceId(), partitionId, subpartitions);
    }

    /** The descriptor of a partition produced by the environment {@code producerId}. */
    public ShuffleDescriptor descriptor(ResourceId producerId, ResultPartitionId partitionId, int subpartitions) {
        return master.registerPartitionWithProducer(
                new PartitionDescriptor(partitionId, PartitionType.PIPELINED_BOUNDED, subpartitions, 0),
                new ProducerDescriptor(producerId, NO_TRANSPORT)).join();
    }

    /** A writer of a new {@code BLOCKING} partition (not set up) and the descriptor its consumers read it by. */
    public record BlockingWriter(ResultPartitionWriter writer, ShuffleDescriptor descriptor) {
    }

    /** A writer of a new {@code BLOCKING} partition of {@code environment}, registered with this fixture's master. */
    public BlockingWriter blockingWriter(ShuffleEnvironment environment, int subpartitions) {
        ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                new PartitionDescriptor(ResultPartitionId.random(), PartitionType.BLOCKING, subpartitions, 0),
                new ProducerDescriptor(environment.resourceId(), environment.dataAddress())).join();
        ResultPartitionWriter writer = environment.createResultPartitionWriters("blocking-producer", List.of(
                new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.BLOCKING, subpartitions))).get(0);
        return new BlockingWriter(writer, descriptor);
    }

    /** A writer of a new partition of {@code environment}, not set up. */
    public ResultPartitionWriter writer(ShuffleEnvironment environment, ResultPartitionId partitionId,
                                        int subpartitions) {
        ResultPartitionDeploymentDescriptor descriptor = new ResultPartitionDeploymentDescriptor(
                descriptor(environment, partitionId, subpartitions), PartitionType.PIPELINED_BOUNDED, subpartitions);
        return environment.createResultPartitionWriters("producer-" + partitionId, List.of(descriptor)).get(0);
    }

    /** A set-up writer of a new partition of {@code environment}. */
    public ResultPartitionWriter setUpWriter(ShuffleEnvironment environment, int subpartitions) throws Exception {
        ResultPartitionWriter writer = writer(environment, ResultPartitionId.random(), subpartitions);
        writer.setup();
        return writer;
    }

    /** A gate of {@code environment} reading subpartition {@code subpartition} of each writer's partition, not set up. */
    public InputGate gate(ShuffleEnvironment environment, int subpartition, ShuffleDescriptor... channels) {
        return environment.createInputGates("consumer-" + subpartition,
                List.of(new InputGateDeploymentDescriptor(subpartition, List.of(channels)))).get(0);
    }

    /** A set-up gate of {@code environment} over subpartition {@code subpartition} of local writers' partitions. */
    public InputGate setUpGate(ShuffleEnvironment environment, int subpartition, ResultPartitionWriter... writers)
            throws Exception {
        ShuffleDescriptor[] channels = new ShuffleDescriptor[writers.length];
        for (int i = 0; i < writers.length; i++) {
            channels[i] = descriptor(environment, writers[i].partitionId(), writers[i].numberOfSubpartitions());
        }
        InputGate gate = gate(environment, subpartition, channels);
        gate.setup();
        return gate;
    }

    /** Closes every environment (idempotent) and asserts that none leaked a segment. */
    @Override
    public void close() {
        master.close();
        for (ShuffleEnvironment environment : environments) {
            environment.close();
        }
        for (ShuffleEnvironment environment : environments) {
            MemoryAssertions.assertAllSegmentsReturned(environment);
        }
    }
}
