package io.sluice.api;

import java.util.Objects;

/**
 * A consumer requested a result partition that its producer does not know (never registered,
 * or already released), and retrying with backoff up to
 * {@link ShuffleOptions#PARTITION_REQUEST_MAX_BACKOFF} did not help. The message contains the
 * partition id. Immutable; any thread.
 */
public class PartitionNotFoundException extends ShuffleException {

    private static final long serialVersionUID = 1L;

    /** The partition that was not found. */
    private final ResultPartitionId partitionId;

    /** @param partitionId the partition that was not found */
    public PartitionNotFoundException(ResultPartitionId partitionId) {
        super("Partition " + Objects.requireNonNull(partitionId, "partitionId") + " not found");
        this.partitionId = partitionId;
    }

    /**
     * @param partitionId the partition that was not found
     * @param detail where it was looked for and how often, e.g. the producer address and retries
     */
    public PartitionNotFoundException(ResultPartitionId partitionId, String detail) {
        super("Partition " + Objects.requireNonNull(partitionId, "partitionId") + " not found: " + detail);
        this.partitionId = partitionId;
    }

    /** @return the partition that was not found */
    public ResultPartitionId partitionId() {
        return partitionId;
    }
}
