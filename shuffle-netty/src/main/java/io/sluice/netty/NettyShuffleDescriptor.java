package io.sluice.netty;

import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleDescriptor;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Where a consumer finds one partition: the partition id, the producer environment's {@link ResourceId} (equal to
 * the consumer's own means "read in-process"), the producer's data address, and the connection index (channels to
 * the same address and index share one TCP connection).
 *
 * <p>Immutable and serializable: engines ship it between processes.
 */
public record NettyShuffleDescriptor(ResultPartitionId partitionId, ResourceId producerId,
                                     InetSocketAddress dataAddress, int connectionIndex) implements ShuffleDescriptor {

    private static final long serialVersionUID = 1L;

    /** Checks the fields. */
    public NettyShuffleDescriptor {
        Objects.requireNonNull(partitionId, "partitionId");
        Objects.requireNonNull(producerId, "producerId");
        Objects.requireNonNull(dataAddress, "dataAddress");
        if (connectionIndex < 0) {
            throw new IllegalArgumentException("connectionIndex must be >= 0, got " + connectionIndex);
        }
    }
}
