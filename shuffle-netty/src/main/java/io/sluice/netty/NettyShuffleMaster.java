package io.sluice.netty;

import io.sluice.api.PartitionDescriptor;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleMaster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator side of the Netty shuffle: turns a partition and its producer into a
 * {@link NettyShuffleDescriptor} and remembers the partitions it registered.
 *
 * <p>Any thread.
 */
final class NettyShuffleMaster implements ShuffleMaster {

    private static final Logger LOG = LoggerFactory.getLogger(NettyShuffleMaster.class);

    private final Map<ResultPartitionId, NettyShuffleDescriptor> registered = new ConcurrentHashMap<>();
    private volatile boolean closed;

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

    @Override
    public void releasePartitionExternally(ShuffleDescriptor descriptor) {
        if (registered.remove(descriptor.partitionId()) != null) {
            LOG.debug("Released partition {} externally", descriptor.partitionId());
        }
    }

    /** The partitions registered and not released; for tests and diagnostics. */
    int registeredPartitions() {
        return registered.size();
    }

    @Override
    public void close() {
        closed = true;
        registered.clear();
    }
}
