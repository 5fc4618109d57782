package io.sluice.netty;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.ConnectionMetrics;
import io.sluice.api.GateMetrics;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.WriterMetrics;
import io.sluice.buffers.DirectMemoryLimit;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.gate.InputChannelFactory;
import io.sluice.netty.gate.SingleInputGate;
import io.sluice.netty.notification.NotificationExecutor;
import io.sluice.netty.partition.RegisteredPartition;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.sortmerge.BlockingReadScheduler;
import io.sluice.netty.partition.sortmerge.SortMergeResultPartition;
import io.sluice.netty.tls.TlsContexts;
import io.sluice.netty.transport.ChannelPipelineHook;
import io.sluice.netty.transport.ConnectionManager;
import io.sluice.netty.transport.TransportMetrics;
import io.sluice.netty.config.EnvironmentConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One process's shuffle environment (a "TaskManager"): the network memory, the partitions produced here, the gates
 * that consume, the timer for flushes and retries, and the Netty transport.
 *
 * <p>Any thread. Writers and gates it created are tracked so that {@link #close()} can release everything.
 */
final class NettyShuffleEnvironment implements ShuffleEnvironment {

    private static final Logger LOG = LoggerFactory.getLogger(NettyShuffleEnvironment.class);

    /** Life cycle of the environment. */
    private enum State {
        CREATED, STARTED, CLOSED
    }

    private final ShuffleEnvironmentContext context;
    private final EnvironmentConfig config;
    private final NetworkBufferPool networkBufferPool;
    private final ResultPartitionManager partitionManager = new ResultPartitionManager();
    /** One timer per environment: periodic flushes and partition request retries. */
    private final ScheduledThreadPoolExecutor timer;
    private final ConnectionManager connectionManager;
    private final InputChannelFactory channelFactory;
    /** Completes the availability futures engines see: never a transport thread (see AvailabilityHandOff). */
    private final ExecutorService notifications;
    /** The directories of blocking partitions. */
    private final FileChannelManager fileManager;
    /** Reads blocking partitions within shuffle.blocking.read-memory. */
    private final BlockingReadScheduler blockingReads;
    /** lz4 for data buffers (shuffle.compression.codec), or null. */
    private final BufferCompressor compressor;

    private final Object lock = new Object();
    @GuardedBy("lock")
    private State state = State.CREATED;
    @GuardedBy("lock")
    private final Set<RegisteredPartition> writers = Collections.newSetFromMap(new IdentityHashMap<>());
    @GuardedBy("lock")
    private final Set<SingleInputGate> gates = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Follow the writers and gates (the Micrometer binding); called with no lock held. */
    private final List<EnvironmentListener> listeners = new CopyOnWriteArrayList<>();
    /** The metrics once closed and every segment came back (the pool is then freed and reads 0). */
    @GuardedBy("lock")
    private ShuffleMetrics finalMetrics;

    /**
     * @param tls          the TLS of the data connections, or null for none
     * @param pipelineHook sees the transport's channels (a test and tool seam, see {@link NettyShuffleEnvironmentBuilder})
     */
    NettyShuffleEnvironment(ShuffleEnvironmentContext context, EnvironmentConfig config, TlsContexts tls,
                            ChannelPipelineHook pipelineHook) {
        this.context = context;
        this.config = config;
        // First: a read memory the JVM cannot hold and an unwritable directory fail the environment before it takes
        // any memory or directory.
        checkDirectMemory(config);
        this.fileManager = new FileChannelManager(config.tmpDirs(), ShuffleOptions.TMP_DIRS.key());
        this.compressor = config.compressionEnabled() ? new BufferCompressor() : null;
        this.blockingReads = new BlockingReadScheduler(context.resourceId().value(), config.blockingReadBuffers(),
                config.segmentSize(), compressor != null ? compressor : new BufferCompressor(),
                config.blockingReadTimeout());
        this.networkBufferPool = new NetworkBufferPool(config.numberOfSegments(), config.segmentSize());
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "sluice-timer-" + context.resourceId().value());
            thread.setDaemon(true);
            return thread;
        });
        this.timer.setRemoveOnCancelPolicy(true);
        this.timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.notifications = NotificationExecutor.create(context.resourceId().value());
        this.connectionManager = new ConnectionManager(context, config, partitionManager, tls, pipelineHook);
        this.partitionManager.setReleaseObserver(this::onPartitionReleased);
        this.channelFactory = new InputChannelFactory(context.resourceId(), context.localCommunicationOnly(),
                config, partitionManager, timer, networkBufferPool, connectionManager,
                connectionManager.metrics()::onBufferReceived, localChannels(context),
                connectionManager::dataAddress);
        if (config.debloat().periodic()) {
            long periodNanos = config.debloat().period().toNanos();
            timer.scheduleWithFixedDelay(this::triggerDebloatingOfEveryGate, periodNanos, periodNanos,
                    TimeUnit.NANOSECONDS);
        }
        if (context.localCommunicationOnly()) {
            // No data port for a shuffle master to send releases to: it finds this environment in the JVM.
            InProcessEnvironments.add(this);
        }
        LOG.info("Created shuffle environment {}: {} segments of {} bytes, transport {}{}", context.resourceId(),
                config.numberOfSegments(), config.segmentSize(),
                servesTransport(context) ? config.transport() : "none (local communication only)",
                localChannels(context) ? "" : " (" + ShuffleOptions.INPUT_LOCAL_CHANNELS.key()
                        + "=false: its own producers are read over it too)");
    }

    /**
     * Buffer debloating driven by the environment ({@code shuffle.debloat.period} above 0): every open gate
     * recalculates and announces its buffer size. The timer thread; a failure is logged and the next period runs.
     */
    private void triggerDebloatingOfEveryGate() {
        List<SingleInputGate> open;
        synchronized (lock) {
            open = new ArrayList<>(gates);
        }
        for (SingleInputGate gate : open) {
            try {
                gate.triggerDebloating();
            } catch (RuntimeException e) {
                LOG.warn("Buffer debloating of {} failed; it is tried again in {}", gate,
                        config.debloat().period(), e);
            }
        }
    }

    /** Whether a producer of this environment is read in-process ({@code shuffle.input.local-channels}). */
    private static boolean localChannels(ShuffleEnvironmentContext context) {
        return context.config().get(ShuffleOptions.INPUT_LOCAL_CHANNELS);
    }

    /**
     * Whether {@link #start()} starts the transport: unless the environment communicates locally only and reads its
     * own producers in-process; without local channels even a local-only environment reads them over it.
     */
    private static boolean servesTransport(ShuffleEnvironmentContext context) {
        return !context.localCommunicationOnly() || !localChannels(context);
    }

    /**
     * Refuses a read memory that the JVM's direct memory cannot hold next to the network memory (both are direct
     * buffers; the network memory is allocated now, the read memory as readers need it): a reader would otherwise
     * fail deep into a read with "Cannot reserve ... bytes of direct buffer memory". Other environments and Netty
     * share the same limit, so passing this check does not promise the memory; the readers fail cleanly then.
     */
    private static void checkDirectMemory(EnvironmentConfig config) {
        long limit = DirectMemoryLimit.maxBytes();
        long network = (long) config.numberOfSegments() * config.segmentSize();
        long read = (long) config.blockingReadBuffers() * config.segmentSize();
        if (limit >= 0 && network + read > limit) {
            throw new IllegalArgumentException(ShuffleOptions.BLOCKING_READ_MEMORY.key() + " of "
                    + config.blockingReadMemory() + " bytes and the network memory of " + network + " bytes ("
                    + ShuffleOptions.MEMORY_TOTAL.key() + ") need " + (network + read) + " bytes of direct memory, but "
                    + "the JVM's direct memory limit is " + limit + " bytes (-XX:MaxDirectMemorySize, by default the "
                    + "maximum heap size): lower " + ShuffleOptions.BLOCKING_READ_MEMORY.key() + " or raise "
                    + "-XX:MaxDirectMemorySize");
        }
    }

    @Override
    public int start() throws IOException {
        synchronized (lock) {
            if (state != State.CREATED) {
                throw new IllegalStateException("environment " + context.resourceId() + " is " + state
                        + "; start() runs once");
            }
            state = State.STARTED;
        }
        if (!servesTransport(context)) {
            return -1;
        }
        return connectionManager.start();
    }

    @Override
    public ResourceId resourceId() {
        return context.resourceId();
    }

    @Override
    public InetSocketAddress dataAddress() {
        return connectionManager.dataAddress();
    }

    @Override
    public List<ResultPartitionWriter> createResultPartitionWriters(
            String ownerName, List<ResultPartitionDeploymentDescriptor> descriptors) {
        List<ResultPartitionWriter> created = new ArrayList<>(descriptors.size());
        for (ResultPartitionDeploymentDescriptor descriptor : descriptors) {
            NettyShuffleDescriptor shuffleDescriptor = nettyDescriptor(descriptor.shuffleDescriptor());
            if (descriptor.type() == PartitionType.BLOCKING) {
                created.add(new SortMergeResultPartition(shuffleDescriptor.partitionId(), ownerName,
                        descriptor.numberOfSubpartitions(), partitionManager, this::createBlockingPartitionPool,
                        fileManager, blockingReads, compressor, config.blockingChecksums()));
            } else if (descriptor.type() == PartitionType.PIPELINED_BOUNDED) {
                ResultPartition partition = new ResultPartition(shuffleDescriptor.partitionId(), ownerName,
                        descriptor.numberOfSubpartitions(), partitionManager, this::createPartitionPool, timer,
                        config.flushInterval(), notifications);
                if (config.debloat().enabled()) {
                    partition.startingBufferSize(config.debloat().effectiveStartingBufferSize(config.segmentSize()));
                }
                created.add(partition);
            } else {
                throw new IllegalArgumentException("partition type " + descriptor.type() + " is not supported");
            }
        }
        synchronized (lock) {
            checkOpen();
            // Forget partitions that were released meanwhile: an environment lives for weeks.
            writers.removeIf(RegisteredPartition::isReleased);
            for (ResultPartitionWriter writer : created) {
                writers.add((RegisteredPartition) writer);
            }
        }
        for (EnvironmentListener listener : listeners) {
            for (ResultPartitionWriter writer : created) {
                listener.writerAdded(writer);
            }
        }
        return created;
    }

    @Override
    public List<InputGate> createInputGates(String ownerName, List<InputGateDeploymentDescriptor> descriptors) {
        List<InputGate> created = new ArrayList<>(descriptors.size());
        for (int g = 0; g < descriptors.size(); g++) {
            InputGateDeploymentDescriptor descriptor = descriptors.get(g);
            String gateName = descriptors.size() == 1 ? ownerName : ownerName + " (gate " + g + ")";
            SingleInputGate gate = new SingleInputGate(gateName, descriptor.inputChannels().size(), this::onGateClosed,
                    notifications, config.inputSpinWait().toNanos(), config.debloat(), config.segmentSize());
            for (int i = 0; i < descriptor.inputChannels().size(); i++) {
                NettyShuffleDescriptor channelDescriptor = nettyDescriptor(descriptor.inputChannels().get(i));
                gate.setChannel(channelFactory.create(gate, i, channelDescriptor.partitionId(),
                        descriptor.consumedSubpartitionIndex(), descriptor.lastConsumedSubpartitionIndex(),
                        channelDescriptor.producerId(),
                        channelDescriptor.dataAddress(), channelDescriptor.connectionIndex()));
            }
            channelFactory.attachGateMemory(gate);
            created.add(gate);
        }
        synchronized (lock) {
            checkOpen();
            for (InputGate gate : created) {
                gates.add((SingleInputGate) gate);
            }
        }
        for (EnvironmentListener listener : listeners) {
            for (InputGate gate : created) {
                listener.gateAdded(gate);
            }
        }
        return created;
    }

    @Override
    public void releasePartitionsLocally(Collection<ResultPartitionId> partitionIds) {
        partitionManager.releasePartitions(partitionIds, null);
    }

    @Override
    public Collection<ResultPartitionId> partitionsOccupyingLocalResources() {
        return partitionManager.registeredPartitionIds();
    }

    @Override
    public ShuffleMetrics metrics() {
        synchronized (lock) {
            if (finalMetrics != null) {
                return finalMetrics;
            }
            if (state == State.CLOSED) {
                // Segments may still be on their way back (a buffer recycled on another environment's event loop
                // after close returned): read them live, and free the memory once all are home.
                return freeMemoryIfAllReturnedLocked();
            }
        }
        return currentMetrics();
    }

    @GuardedBy("lock")
    private ShuffleMetrics freeMemoryIfAllReturnedLocked() {
        ShuffleMetrics live = currentMetrics();
        if (live.availableSegments() == live.totalSegments()) {
            finalMetrics = live;
            networkBufferPool.destroy();
        }
        return live;
    }

    private ShuffleMetrics currentMetrics() {
        List<ResultPartitionWriter> liveWriters = new ArrayList<>();
        List<InputGate> liveGates;
        synchronized (lock) {
            for (RegisteredPartition writer : writers) {
                if (!writer.isReleased()) {
                    liveWriters.add((ResultPartitionWriter) writer);
                }
            }
            liveGates = new ArrayList<>(gates);
        }
        // Each snapshot outside the environment's lock: it takes the writer's or gate's own locks for a moment.
        List<WriterMetrics> writerMetrics = new ArrayList<>(liveWriters.size());
        for (ResultPartitionWriter writer : liveWriters) {
            writerMetrics.add(writer.metrics());
        }
        List<GateMetrics> gateMetrics = new ArrayList<>(liveGates.size());
        for (InputGate gate : liveGates) {
            gateMetrics.add(gate.metrics());
        }
        TransportMetrics transport = connectionManager.metrics();
        return new ShuffleMetrics(networkBufferPool.getTotalNumberOfMemorySegments(),
                networkBufferPool.getNumberOfAvailableMemorySegments(), transport.bytesSent(),
                transport.bytesReceived(), transport.buffersSent(), transport.buffersReceived(),
                connectionManager.openConnections(), writerMetrics, gateMetrics, connectionManager.connectionMetrics());
    }

    /** {@inheritDoc} Reads each connection's counters; takes no lock. */
    @Override
    public List<ConnectionMetrics> connectionMetrics() {
        return connectionManager.connectionMetrics();
    }

    @Override
    public void close() {
        List<RegisteredPartition> writersToRelease;
        List<SingleInputGate> gatesToClose;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            writersToRelease = new ArrayList<>(writers);
            gatesToClose = new ArrayList<>(gates);
            writers.clear();
            gates.clear();
        }
        InProcessEnvironments.remove(this);
        // No partition registers from now on: a late setup() fails with a ShuffleException instead of meeting the
        // transport's terminated event loops.
        partitionManager.refuseRegistrations();
        for (SingleInputGate gate : gatesToClose) {
            gate.close();
        }
        // Connections go first: remote consumers see the lost connection (TransportException), not a release.
        connectionManager.close();
        ProducerFailedException cause = new ProducerFailedException("shuffle environment " + context.resourceId()
                + " was closed");
        for (RegisteredPartition writer : writersToRelease) {
            writer.release(cause);
        }
        partitionManager.shutdown(cause);
        blockingReads.close();
        fileManager.close();
        timer.shutdownNow();
        try {
            if (!timer.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("Timer of environment {} did not stop within 5 s", context.resourceId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Pending notifications still run (a woken engine then sees the closed writer or gate); later ones run on
        // the completing thread, as there is nothing left to wait for.
        notifications.shutdown();
        networkBufferPool.destroyAllBufferPools();
        ShuffleMetrics atClose;
        synchronized (lock) {
            atClose = freeMemoryIfAllReturnedLocked();
        }
        int missing = atClose.totalSegments() - atClose.availableSegments();
        if (missing > 0) {
            // Buffers still held by the engine (a BufferOrEvent not recycled yet), or in flight to another
            // environment, come back later; freeing their memory now would pull it from under them. metrics()
            // frees it once they are all back.
            LOG.info("Shuffle environment {} closed with {} of {} segments still in use; they return when their "
                    + "buffers are recycled", context.resourceId(), missing, atClose.totalSegments());
        }
        for (EnvironmentListener listener : listeners) {
            listener.environmentClosed();
        }
        LOG.info("Closed shuffle environment {}", context.resourceId());
    }

    private LocalBufferPool createPartitionPool(ResultPartitionId partitionId, int subpartitions)
            throws ShuffleException {
        return createPartitionPool(partitionId, subpartitions, config.partitionMaxBuffers(subpartitions));
    }

    /** A blocking partition's pool: the same minimum, but up to shuffle.blocking.write-memory for its regions. */
    private LocalBufferPool createBlockingPartitionPool(ResultPartitionId partitionId, int subpartitions)
            throws ShuffleException {
        return createPartitionPool(partitionId, subpartitions, config.blockingPartitionMaxBuffers(subpartitions));
    }

    private LocalBufferPool createPartitionPool(ResultPartitionId partitionId, int subpartitions, int max)
            throws ShuffleException {
        int required = config.partitionRequiredBuffers(subpartitions);
        try {
            return networkBufferPool.createBufferPool(required, max, subpartitions,
                    config.maxBuffersPerSubpartition());
        } catch (IllegalStateException e) {
            if (networkBufferPool.isDestroyed()) {
                // A writer set up after its environment's close freed the memory.
                throw new ShuffleException("partition " + partitionId + " cannot be set up: the environment "
                        + context.resourceId() + " is closed", e);
            }
            throw e;
        } catch (IOException e) {
            throw new InsufficientBuffersException("partition " + partitionId + " needs at least " + required
                    + " buffers = " + subpartitions + " subpartitions + 1, but environment " + context.resourceId()
                    + " has only " + networkBufferPool.getNumberOfUnreservedMemorySegments() + " free of "
                    + networkBufferPool.getTotalNumberOfMemorySegments() + " segments of " + config.segmentSize()
                    + " bytes; raise " + ShuffleOptions.MEMORY_TOTAL.key() + " (" + e.getMessage() + ")", e);
        }
    }

    private void onGateClosed(SingleInputGate gate) {
        synchronized (lock) {
            gates.remove(gate);
        }
        for (EnvironmentListener listener : listeners) {
            listener.gateRemoved(gate);
        }
    }

    private void onPartitionReleased(RegisteredPartition partition) {
        if (partition instanceof ResultPartitionWriter writer) {
            for (EnvironmentListener listener : listeners) {
                listener.writerRemoved(writer);
            }
        }
    }

    /**
     * Adds a listener and returns the writers (not released) and gates (not closed) alive now; a writer or gate
     * created meanwhile may be both in the result and reported to the listener.
     */
    List<Object> addListener(EnvironmentListener listener) {
        listeners.add(listener);
        List<Object> alive = new ArrayList<>();
        synchronized (lock) {
            for (RegisteredPartition writer : writers) {
                if (!writer.isReleased()) {
                    alive.add(writer);
                }
            }
            alive.addAll(gates);
        }
        return alive;
    }

    /** Removes a listener added with {@link #addListener}. */
    void removeListener(EnvironmentListener listener) {
        listeners.remove(listener);
    }

    @GuardedBy("lock")
    private void checkOpen() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("environment " + context.resourceId() + " is closed");
        }
    }

    private NettyShuffleDescriptor nettyDescriptor(ShuffleDescriptor descriptor) {
        if (descriptor instanceof NettyShuffleDescriptor) {
            return (NettyShuffleDescriptor) descriptor;
        }
        throw new IllegalArgumentException("shuffle descriptor " + descriptor + " of partition "
                + descriptor.partitionId() + " was not made by the Netty shuffle master (it is a "
                + descriptor.getClass().getName() + "); use the ShuffleMaster of the same ShuffleServiceFactory");
    }

    /** The environment's network memory; internal, for {@link NettyShuffleEnvironmentBuilder#networkBufferPool}. */
    NetworkBufferPool networkBufferPool() {
        return networkBufferPool;
    }

    @Override
    public String toString() {
        return "shuffle environment " + context.resourceId();
    }

    /** The reader of this environment's blocking partitions and its read budget; for tests. */
    BlockingReadScheduler blockingReads() {
        return blockingReads;
    }

}
