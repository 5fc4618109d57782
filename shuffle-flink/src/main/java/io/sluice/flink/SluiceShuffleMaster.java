package io.sluice.flink;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.api.ShuffleException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.shuffle.PartitionDescriptor;
import org.apache.flink.runtime.shuffle.ProducerDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleMaster;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The JobManager side: registers each partition Flink is about to produce with Sluice's shuffle master and wraps
 * Sluice's descriptor for Flink, mapping Flink's partition type with {@link PartitionTypes}. Refuses partition types
 * Sluice cannot carry (hybrid exchanges) with a message that names the type, so the deployment fails at once instead
 * of hanging. Thread-safe: Sluice's master is.
 */
final class SluiceShuffleMaster implements ShuffleMaster<SluiceShuffleDescriptor> {

    private final io.sluice.api.ShuffleMaster sluice;

    SluiceShuffleMaster(ShuffleConfig config) {
        ShuffleServiceFactory factory;
        try {
            factory = ShuffleServiceLoader.load(config);
        } catch (ShuffleException e) {
            throw new IllegalStateException("cannot load Sluice's shuffle service: " + e.getMessage(), e);
        }
        this.sluice = factory.createShuffleMaster(config);
    }

    @Override
    public CompletableFuture<SluiceShuffleDescriptor> registerPartitionWithProducer(
            JobID jobID, PartitionDescriptor partition, ProducerDescriptor producer) {
        io.sluice.api.PartitionType type;
        try {
            type = PartitionTypes.toSluice(partition.getPartitionType(), partition.getPartitionId(),
                    partition.getResultId());
        } catch (UnsupportedPartitionTypeException e) {
            return CompletableFuture.failedFuture(e);
        }
        org.apache.flink.runtime.io.network.partition.ResultPartitionID flinkId =
                new org.apache.flink.runtime.io.network.partition.ResultPartitionID(
                        partition.getPartitionId(), producer.getProducerExecutionId());
        // A TaskManager that communicates locally only has no data port (-1); its consumers read in-process.
        int port = Math.max(0, producer.getDataPort());
        io.sluice.api.PartitionDescriptor sluicePartition = new io.sluice.api.PartitionDescriptor(
                PartitionIds.toSluice(flinkId), type,
                partition.getNumberOfSubpartitions(), connectionIndex(partition));
        io.sluice.api.ProducerDescriptor sluiceProducer = new io.sluice.api.ProducerDescriptor(
                PartitionIds.toSluice(producer.getProducerLocation()),
                new InetSocketAddress(producer.getAddress(), port));
        return sluice.registerPartitionWithProducer(sluicePartition, sluiceProducer)
                .thenApply(sd -> new SluiceShuffleDescriptor(flinkId, producer.getProducerLocation(), sd));
    }

    /**
     * Flink's partition tracker calls this for every partition it releases (a blocking partition once its consumers
     * are done, every partition of a job that ends); it also asks the producer's TaskManager to
     * {@code releasePartitions}, which reaches {@link SluiceShuffleEnvironment#releasePartitionsLocally}. Both calls
     * go to Sluice; whichever comes second finds the partition gone.
     */
    @Override
    public void releasePartitionExternally(ShuffleDescriptor descriptor) {
        if (descriptor instanceof SluiceShuffleDescriptor sluiceDescriptor) {
            sluice.releasePartitionExternally(sluiceDescriptor.sluiceDescriptor());
        }
    }

    @Override
    public void close() {
        sluice.close();
    }

    /**
     * One connection between two TaskManagers per intermediate result, as on Flink's own shuffle (Flink 2.3 gives
     * each intermediate result a random connection index and opens one connection per producer address and index).
     * Flink's index is package-private, so the result's id stands in for it: every partition of a result gets the
     * same index, different results (almost always) different ones.
     */
    static int connectionIndex(PartitionDescriptor partition) {
        return partition.getResultId().hashCode() & Integer.MAX_VALUE;
    }
}
