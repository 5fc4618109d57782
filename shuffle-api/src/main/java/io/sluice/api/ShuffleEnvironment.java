package io.sluice.api;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;

/**
 * The shuffle side of one process (a TaskManager): owns all network memory, the transport, and
 * the partitions produced here. Create writers and gates here; each is then used by one task
 * thread. The methods of the environment itself are safe to call from any thread.
 */
public interface ShuffleEnvironment extends AutoCloseable {

    /**
     * Starts the transport.
     *
     * @return the data port, or -1 when the environment communicates locally only
     * @throws IOException when the transport cannot bind
     */
    int start() throws IOException;

    /** @return this environment's identity */
    ResourceId resourceId();

    /** @return after {@link #start()}: the address to put into a {@link ProducerDescriptor} */
    InetSocketAddress dataAddress();

    /**
     * @param ownerName the producing task, used in log and error messages
     * @param descriptors one per partition the task produces
     * @return one writer per descriptor, in order, not set up yet
     */
    List<ResultPartitionWriter> createResultPartitionWriters(
            String ownerName, List<ResultPartitionDeploymentDescriptor> descriptors);

    /**
     * @param ownerName the consuming task, used in log and error messages
     * @param descriptors one per gate the task reads
     * @return one gate per descriptor, in order, not set up yet
     */
    List<InputGate> createInputGates(
            String ownerName, List<InputGateDeploymentDescriptor> descriptors);

    /** @param partitionIds partitions produced here to release now, read or not */
    void releasePartitionsLocally(Collection<ResultPartitionId> partitionIds);

    /** @return the partitions produced here that still hold memory */
    Collection<ResultPartitionId> partitionsOccupyingLocalResources();

    /**
     * @return a snapshot of the counters, with one entry per writer, gate and connection alive now; may be called
     *     after {@link #close()}
     */
    ShuffleMetrics metrics();

    /**
     * The data connections open now, with their peer's address, direction, state, outstanding credit and bytes
     * each way. Cheap; any thread.
     *
     * @return one entry per open connection; empty when the environment communicates locally only or is closed
     */
    default List<ConnectionMetrics> connectionMetrics() {
        return metrics().connections();
    }

    /** Releases every partition, writer and gate, and stops the transport; idempotent. */
    @Override
    void close();
}
