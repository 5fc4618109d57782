package io.sluice.netty;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.netty.config.EnvironmentConfig;
import io.sluice.netty.tls.OpenSslSupport;
import io.sluice.netty.tls.TlsContexts;
import io.sluice.netty.transport.PartitionReleaseClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator side of the Netty shuffle: turns a partition and its producer into a
 * {@link NettyShuffleDescriptor}, remembers the partitions it registered, and releases them at their producers
 * ({@link #releasePartitionExternally}: a {@code ReleasePartitions} message to the producer environment's data port,
 * with the environments' transport and TLS settings, so it must be created with the environments' configuration).
 *
 * <p>Any thread. {@code lock} guards the release client and the closed flag.
 */
final class NettyShuffleMaster implements ShuffleMaster {

    private static final Logger LOG = LoggerFactory.getLogger(NettyShuffleMaster.class);

    private final Map<ResultPartitionId, NettyShuffleDescriptor> registered = new ConcurrentHashMap<>();
    /** The environments' configuration: transport and TLS of the release connections. */
    private final ShuffleConfig config;
    private final OpenSslSupport openSsl;
    private final Object lock = new Object();
    private volatile boolean closed; // written under lock
    @GuardedBy("lock")
    private PartitionReleaseClient releaseClient;

    /** A master for environments with the default configuration (tests). */
    NettyShuffleMaster() {
        this(ShuffleConfig.empty(), OpenSslSupport.netty());
    }

    /**
     * @param config  the environments' configuration (the master connects with their transport and TLS settings)
     * @param openSsl whether the openssl TLS provider can run
     */
    NettyShuffleMaster(ShuffleConfig config, OpenSslSupport openSsl) {
        this.config = config;
        this.openSsl = openSsl;
    }

    @Override
    public CompletableFuture<ShuffleDescriptor> registerPartitionWithProducer(PartitionDescriptor partition,
                                                                              ProducerDescriptor producer) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "shuffle master is closed; cannot register partition " + partition.partitionId()));
        }
        NettyShuffleDescriptor descriptor = new NettyShuffleDescriptor(partition.partitionId(), producer.producerId(),
                producer.dataAddress(), partition.connectionIndex());
        registered.put(partition.partitionId(), descriptor);
        return CompletableFuture.completedFuture(descriptor);
    }

    /**
     * Forgets the partition and asks its producer's environment, over a connection to its data port, to release it
     * there as {@code releasePartitionsLocally} would (a blocking partition's files are deleted). Returns at once;
     * the request runs in the background, and a failure (the environment is gone or unreachable) is logged: its
     * files then stay until that environment releases the partition itself or closes.
     */
    @Override
    public void releasePartitionExternally(ShuffleDescriptor descriptor) {
        releaseAtProducer(descriptor);
    }

    /**
     * {@link #releasePartitionExternally}, with the outcome: completes once the producer's environment has released
     * the partition (or when there is nothing to ask: the producer serves no data port), exceptionally with a
     * {@link io.sluice.api.ShuffleException} naming the address when it could not be asked.
     */
    CompletableFuture<Void> releaseAtProducer(ShuffleDescriptor descriptor) {
        ResultPartitionId id = descriptor.partitionId();
        if (registered.remove(id) != null) {
            LOG.debug("Released partition {} externally", id);
        }
        if (!(descriptor instanceof NettyShuffleDescriptor netty)) {
            LOG.warn("Partition {} cannot be released at its producer: its descriptor is not a Netty descriptor but "
                    + "{}; release it there with releasePartitionsLocally", id, descriptor.getClass().getName());
            return CompletableFuture.completedFuture(null);
        }
        if (netty.dataAddress().getPort() <= 0) {
            // No data port (local communication only): the producer can only be in this JVM.
            if (!InProcessEnvironments.release(netty.producerId(), id)) {
                LOG.warn("Partition {} cannot be released at its producer {}: it serves no data port and is not an "
                        + "environment of this JVM; release it there with releasePartitionsLocally", id,
                        netty.producerId());
            }
            return CompletableFuture.completedFuture(null);
        }
        PartitionReleaseClient client;
        try {
            client = releaseClient();
        } catch (RuntimeException e) {
            LOG.error("Partition {} cannot be released at {}: {}", id, netty.dataAddress(), e.getMessage());
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> done = client.release(netty.dataAddress(), List.of(id));
        done.whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.warn("{}", error.getMessage());
            } else {
                LOG.debug("Producer {} at {} released partition {}", netty.producerId(), netty.dataAddress(), id);
            }
        });
        return done;
    }

    /** The client, made at the first release from the master's configuration (its transport and TLS). */
    private PartitionReleaseClient releaseClient() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("shuffle master is closed");
            }
            if (releaseClient == null) {
                EnvironmentConfig settings = EnvironmentConfig.from(
                        ShuffleEnvironmentContext.of(config, new ResourceId("shuffle-master")));
                TlsContexts tls = settings.tls() == null ? null : TlsContexts.create(settings.tls(), openSsl);
                releaseClient = new PartitionReleaseClient(settings.transport(), tls, settings.connectTimeout(),
                        settings.connectTimeout().plus(settings.heartbeatTimeout()));
            }
            return releaseClient;
        }
    }

    /** The partitions registered and not released; for tests and diagnostics. */
    int registeredPartitions() {
        return registered.size();
    }

    @Override
    public void close() {
        PartitionReleaseClient client;
        synchronized (lock) {
            closed = true;
            client = releaseClient;
            releaseClient = null;
        }
        registered.clear();
        if (client != null) {
            client.close();
        }
    }
}
