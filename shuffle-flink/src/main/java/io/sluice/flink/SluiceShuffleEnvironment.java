package io.sluice.flink;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.deployment.InputGateDeploymentDescriptor;
import org.apache.flink.runtime.deployment.ResultPartitionDeploymentDescriptor;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.IndexRange;
import org.apache.flink.runtime.executiongraph.PartitionInfo;
import org.apache.flink.runtime.io.network.TaskEventPublisher;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleIOOwnerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One TaskManager's shuffle: a Sluice {@link io.sluice.api.ShuffleEnvironment} (all of the TaskManager's network
 * memory, one transport whose port Flink advertises as the TaskManager's data port) and the Flink writers and gates
 * made on it. One per TaskManager, never shared: a MiniCluster runs several TaskManagers in one JVM.
 *
 * <p>Metrics: the TaskManager's group gets {@code Shuffle.Sluice.TotalMemorySegments} and
 * {@code AvailableMemorySegments}; each task's shuffle group gets {@code Shuffle.Sluice.Input.numBuffersIn}, and with
 * buffer debloating {@code Shuffle.Sluice.Input.<gate index>.debloatedBufferSize} as Flink's own gates have; Flink's
 * task I/O counters (bytes and buffers out) are fed by the writers and bytes in by Flink's own gate wrapper.
 *
 * <p>Thread-safe: Flink creates writers and gates from task deployment threads and releases partitions from its
 * RPC thread; the Sluice environment is thread-safe and the id map is concurrent.
 */
public final class SluiceShuffleEnvironment
        implements ShuffleEnvironment<SluiceResultPartitionWriter, SluiceInputGate> {

    private static final Logger LOG = LoggerFactory.getLogger(SluiceShuffleEnvironment.class);

    /**
     * Recovered input buffers a gate lets Flink's channel-state reader have out at a time, per channel: enough that
     * the reader fills one while the task reads another.
     */
    private static final int RECOVERED_BUFFERS_PER_CHANNEL = 2;

    /** Name of the metric group this shuffle registers under a task's and a TaskManager's group. */
    static final String METRIC_GROUP = "Sluice";

    private final io.sluice.api.ShuffleEnvironment sluice;
    private final Executor callbackExecutor;
    private final TaskEventPublisher taskEventPublisher;
    /** Whether gates debloat ({@code shuffle.debloat.enabled}): then each gets a debloated-size gauge. */
    private final boolean debloating;
    /** The segment size: the buffer size of a gate that announced none. */
    private final int segmentSize;
    /** Flink's id of each partition produced here, by Sluice's id. */
    private final Map<io.sluice.api.ResultPartitionId, ResultPartitionID> flinkIds = new ConcurrentHashMap<>();

    private SluiceShuffleEnvironment(io.sluice.api.ShuffleEnvironment sluice, ShuffleConfig config,
                                     Executor callbackExecutor, TaskEventPublisher taskEventPublisher) {
        this.sluice = sluice;
        this.callbackExecutor = callbackExecutor;
        this.taskEventPublisher = taskEventPublisher;
        this.debloating = config.get(ShuffleOptions.DEBLOAT_ENABLED);
        this.segmentSize = Math.toIntExact(config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
    }

    /**
     * Builds the environment of one TaskManager from Flink's context.
     *
     * @throws org.apache.flink.configuration.IllegalConfigurationException when the configuration asks for what
     *     Sluice cannot carry, or a {@code sluice.*} option is wrong
     */
    static SluiceShuffleEnvironment create(org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext context) {
        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(context.getConfiguration(),
                context.getNetworkMemorySize().getBytes());
        ShuffleServiceFactory factory;
        try {
            factory = ShuffleServiceLoader.load(config);
        } catch (ShuffleException e) {
            throw new IllegalStateException("cannot load Sluice's shuffle service: " + e.getMessage(), e);
        }
        io.sluice.api.ShuffleEnvironment sluice = factory.createShuffleEnvironment(new ShuffleEnvironmentContext(
                config, PartitionIds.toSluice(context.getTaskExecutorResourceId()),
                context.getNetworkMemorySize().getBytes(), context.isLocalCommunicationOnly(),
                context.getHostAddress()));
        SluiceShuffleEnvironment environment = new SluiceShuffleEnvironment(sluice, config,
                context.getIoExecutor(), context.getEventPublisher());
        environment.registerMetrics(context.getParentMetricGroup());
        return environment;
    }

    private void registerMetrics(MetricGroup taskManagerGroup) {
        MetricGroup group = taskManagerGroup.addGroup("Shuffle").addGroup(METRIC_GROUP);
        group.gauge("TotalMemorySegments", () -> sluice.metrics().totalSegments());
        group.gauge("AvailableMemorySegments", () -> sluice.metrics().availableSegments());
    }

    /** @return the Sluice environment under this one (for tests and metrics) */
    public io.sluice.api.ShuffleEnvironment sluiceEnvironment() {
        return sluice;
    }

    @Override
    public int start() throws IOException {
        int port = sluice.start();
        LOG.info("Sluice shuffle environment {} started; data port {}", sluice.resourceId(), port);
        return port;
    }

    @Override
    public ShuffleIOOwnerContext createShuffleIOOwnerContext(String ownerName, ExecutionAttemptID executionAttemptID,
                                                             MetricGroup parentGroup) {
        MetricGroup shuffleGroup = parentGroup.addGroup("Shuffle").addGroup(METRIC_GROUP);
        return new ShuffleIOOwnerContext(ownerName, executionAttemptID, parentGroup, shuffleGroup.addGroup("Output"),
                shuffleGroup.addGroup("Input"));
    }

    @Override
    public List<SluiceResultPartitionWriter> createResultPartitionWriters(
            ShuffleIOOwnerContext ownerContext, List<ResultPartitionDeploymentDescriptor> descriptors) {
        List<io.sluice.api.ResultPartitionDeploymentDescriptor> sluiceDescriptors = new ArrayList<>();
        for (ResultPartitionDeploymentDescriptor descriptor : descriptors) {
            io.sluice.api.PartitionType type = PartitionTypes.toSluice(descriptor.getPartitionType(),
                    descriptor.getPartitionId(), descriptor.getResultId());
            SluiceShuffleDescriptor sd = sluiceDescriptor(descriptor.getShuffleDescriptor(), ownerContext);
            sluiceDescriptors.add(new io.sluice.api.ResultPartitionDeploymentDescriptor(sd.sluiceDescriptor(),
                    type, descriptor.getNumberOfSubpartitions()));
        }
        List<io.sluice.api.ResultPartitionWriter> sluiceWriters =
                sluice.createResultPartitionWriters(ownerContext.getOwnerName(), sluiceDescriptors);
        List<SluiceResultPartitionWriter> writers = new ArrayList<>(descriptors.size());
        for (int i = 0; i < descriptors.size(); i++) {
            ResultPartitionDeploymentDescriptor descriptor = descriptors.get(i);
            ResultPartitionID flinkId = descriptor.getShuffleDescriptor().getResultPartitionID();
            flinkIds.put(sluiceWriters.get(i).partitionId(), flinkId);
            writers.add(new SluiceResultPartitionWriter(sluiceWriters.get(i), flinkId, i, ownerContext.getOwnerName(),
                    descriptor.getMaxParallelism(), PartitionTypes.isBlocking(descriptor.getPartitionType()),
                    segmentSize, callbackExecutor, taskEventPublisher));
        }
        return writers;
    }

    @Override
    public List<SluiceInputGate> createInputGates(ShuffleIOOwnerContext ownerContext,
                                                  PartitionProducerStateProvider producerStateProvider,
                                                  List<InputGateDeploymentDescriptor> descriptors) {
        Counter numBuffersIn = ownerContext.getInputGroup().counter("numBuffersIn");
        List<SluiceInputGate> gates = new ArrayList<>(descriptors.size());
        for (int gateIndex = 0; gateIndex < descriptors.size(); gateIndex++) {
            gates.add(createInputGate(ownerContext, gateIndex, descriptors.get(gateIndex), numBuffersIn));
        }
        return gates;
    }

    private SluiceInputGate createInputGate(ShuffleIOOwnerContext owner, int gateIndex,
                                            InputGateDeploymentDescriptor descriptor, Counter numBuffersIn) {
        String ownerName = owner.getOwnerName();
        ShuffleDescriptor[] shuffleDescriptors = descriptor.getShuffleDescriptors();
        int channels = descriptor.getNumConsumedShuffleDescriptors();
        ResultPartitionID[] partitionIds = new ResultPartitionID[channels];
        int[] firstSubpartition = new int[channels];
        int[] lastSubpartition = new int[channels];
        io.sluice.api.ShuffleDescriptor[] sluiceChannels = new io.sluice.api.ShuffleDescriptor[channels];
        int channel = 0;
        for (IndexRange range : descriptor.getConsumedShuffleDescriptorRanges()) {
            for (int i = range.getStartIndex(); i <= range.getEndIndex(); i++) {
                // Flink's range is contiguous (an IndexRange): one Sluice channel reads it, one subpartition after
                // the other, as Flink's own channels do.
                IndexRange consumed = descriptor.getConsumedSubpartitionRange(i);
                SluiceShuffleDescriptor sd = sluiceDescriptor(shuffleDescriptors[i], owner);
                partitionIds[channel] = sd.getResultPartitionID();
                firstSubpartition[channel] = consumed.getStartIndex();
                lastSubpartition[channel] = consumed.getEndIndex();
                sluiceChannels[channel] = sd.sluiceDescriptor();
                channel++;
            }
        }
        // One Sluice gate per consumed subpartition range (usually exactly one), read as a union.
        SubpartitionGroups groups = SubpartitionGroups.of(firstSubpartition, lastSubpartition, sluiceChannels);
        io.sluice.api.InputGate gate = groups.createGate(sluice, ownerName + " (gate " + gateIndex + ")");
        RecoveredInput recovered = new RecoveredInput(gate, groups.toSluiceChannel(), segmentSize,
                RECOVERED_BUFFERS_PER_CHANNEL * channels);
        SluiceInputGate flinkGate = new SluiceInputGate(ownerName, gateIndex, descriptor.getConsumedPartitionType(),
                gate, groups.toSluiceChannel(), firstSubpartition, lastSubpartition,
                hooks -> FlinkChannelStandIns.create(ownerName, gateIndex, descriptor.getConsumedResultId(),
                        descriptor.getConsumedPartitionType(), partitionIds, firstSubpartition, hooks),
                recovered, numBuffersIn);
        if (debloating) {
            owner.getInputGroup().addGroup(gateIndex).gauge(MetricNames.DEBLOATED_BUFFER_SIZE,
                    () -> debloatedBufferSize(flinkGate));
        }
        return flinkGate;
    }

    /** The size {@code gate}'s producers cut buffers at: the one it announced, or a segment while it announced none. */
    private int debloatedBufferSize(SluiceInputGate gate) {
        int announced = gate.debloatedBufferSize();
        return announced == 0 ? segmentSize : announced;
    }

    private static SluiceShuffleDescriptor sluiceDescriptor(ShuffleDescriptor descriptor, ShuffleIOOwnerContext owner) {
        if (descriptor instanceof SluiceShuffleDescriptor sd) {
            return sd;
        }
        throw UnsupportedFeatures.refusal(owner.getOwnerName() + ": the shuffle descriptor " + descriptor + " was not "
                + "made by Sluice's shuffle master" + (descriptor.isUnknown()
                ? " (its producer was not deployed yet; Sluice needs every producer of a pipelined region known at "
                + "deployment)" : "; the JobManager and the TaskManagers must all use shuffle-service-factory.class: "
                + SluiceShuffleServiceFactory.class.getName()));
    }

    /**
     * Flink sends late partition info only to a consumer that it deployed with an {@code UnknownShuffleDescriptor}:
     * in a batch job, for an input whose producer was not yet scheduled (a pipelined input) or not yet finished (a
     * blocking input), or for a hybrid input. None happens in the modes Sluice supports: streaming jobs require every
     * producer known; in batch jobs a pipelined region's producers are scheduled with their consumers and a blocking
     * input's consumer is scheduled only once the input is consumable; hybrid partitions are refused. Sluice's gates
     * are built with all their channels and cannot add one later, so a call here is a deployment Sluice cannot carry.
     *
     * @throws IOException always, naming the consumer and the partition; its cause, an
     *     {@link UnsupportedFeatureException}, makes the consumer's failure non-recoverable for Flink (the TaskManager
     *     fails the consumer with an {@code IOException} from here; any other exception would be fatal to it)
     */
    @Override
    public boolean updatePartitionInfo(ExecutionAttemptID consumerID, PartitionInfo partitionInfo) throws IOException {
        String message = "Sluice's Flink shuffle got late partition info for consumer " + consumerID + " ("
                + partitionInfo.getShuffleDescriptor() + " of intermediate result "
                + partitionInfo.getIntermediateDataSetID() + "): its gates are built with every producer known at "
                + "deployment and cannot add a channel later. Flink sends this only for consumers deployed before "
                + "their producers, which none of the supported modes does (streaming; batch with BLOCKING or "
                + "PIPELINED exchanges); see docs/flink.md";
        throw new IOException(message, UnsupportedFeatures.refusal(message));
    }

    @Override
    public void releasePartitionsLocally(Collection<ResultPartitionID> partitionIds) {
        List<io.sluice.api.ResultPartitionId> ids = new ArrayList<>(partitionIds.size());
        for (ResultPartitionID id : partitionIds) {
            io.sluice.api.ResultPartitionId sluiceId = PartitionIds.toSluice(id);
            ids.add(sluiceId);
            flinkIds.remove(sluiceId);
        }
        sluice.releasePartitionsLocally(ids);
    }

    @Override
    public Collection<ResultPartitionID> getPartitionsOccupyingLocalResources() {
        Set<io.sluice.api.ResultPartitionId> occupying = new HashSet<>(sluice.partitionsOccupyingLocalResources());
        flinkIds.keySet().retainAll(occupying);
        List<ResultPartitionID> result = new ArrayList<>();
        for (io.sluice.api.ResultPartitionId id : occupying) {
            ResultPartitionID flinkId = flinkIds.get(id);
            if (flinkId != null) {
                result.add(flinkId);
            }
        }
        return result;
    }

    @Override
    public void close() {
        sluice.close();
        flinkIds.clear();
        LOG.info("Sluice shuffle environment {} closed", sluice.resourceId());
    }
}
