package io.sluice.flink;

import io.sluice.api.ShuffleConfig;
import io.sluice.netty.NettyShuffleDescriptor;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.apache.flink.runtime.shuffle.PartitionDescriptor;
import org.apache.flink.runtime.shuffle.ProducerDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SluiceShuffleMasterTest {

    private final ResourceID producerTaskManager = ResourceID.generate();
    private final ProducerDescriptor producer = new ProducerDescriptor(producerTaskManager,
            ExecutionAttemptID.randomId(), InetAddress.getLoopbackAddress(), 4242);

    @Test
    void pipelinedPartition_isRegisteredWithSluice_andStoresItsResourcesOnTheProducer() throws Exception {
        try (SluiceShuffleMaster master = new SluiceShuffleMaster(ShuffleConfig.empty())) {
            PartitionDescriptor partition = partition(ResultPartitionType.PIPELINED_BOUNDED);

            SluiceShuffleDescriptor descriptor =
                    master.registerPartitionWithProducer(new JobID(), partition, producer).get();

            ResultPartitionID flinkId = new ResultPartitionID(partition.getPartitionId(),
                    producer.getProducerExecutionId());
            assertEquals(flinkId, descriptor.getResultPartitionID());
            assertEquals(Optional.of(producerTaskManager), descriptor.storesLocalResourcesOn());
            assertEquals(PartitionIds.toSluice(flinkId), descriptor.sluiceDescriptor().partitionId(),
                    "the TaskManagers derive the same Sluice id from Flink's");
        }
    }

    @ParameterizedTest
    @EnumSource(value = ResultPartitionType.class, names = {"BLOCKING", "BLOCKING_PERSISTENT"})
    void blockingPartition_isRegisteredWithSluice_andStoresItsFilesOnTheProducer(ResultPartitionType type)
            throws Exception {
        try (SluiceShuffleMaster master = new SluiceShuffleMaster(ShuffleConfig.empty())) {
            SluiceShuffleDescriptor descriptor =
                    master.registerPartitionWithProducer(new JobID(), partition(type), producer).get();

            assertEquals(Optional.of(producerTaskManager), descriptor.storesLocalResourcesOn());
            assertEquals(io.sluice.api.PartitionType.BLOCKING, PartitionTypes.toSluice(type, "p", "r"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = ResultPartitionType.class, names = {"HYBRID_FULL", "HYBRID_SELECTIVE", "PIPELINED_APPROXIMATE"})
    void hybridPartition_failsItsRegistration_namingThePartitionTypeAndTheOption(ResultPartitionType type) {
        try (SluiceShuffleMaster master = new SluiceShuffleMaster(ShuffleConfig.empty())) {
            CompletableFuture<SluiceShuffleDescriptor> registration = master.registerPartitionWithProducer(
                    new JobID(), partition(type), producer);

            ExecutionException failure = assertThrows(ExecutionException.class, registration::get);
            assertInstanceOf(UnsupportedPartitionTypeException.class, failure.getCause());
            assertTrue(failure.getCause().getMessage().contains("is " + type), failure.getCause().getMessage());
            assertTrue(failure.getCause().getMessage().contains("execution.batch-shuffle-mode: ALL_EXCHANGES_BLOCKING"),
                    failure.getCause().getMessage());
        }
    }

    @Test
    void partitionsOfOneIntermediateResult_shareAConnection_andDifferentResultsUseTheirOwn() throws Exception {
        try (SluiceShuffleMaster master = new SluiceShuffleMaster(ShuffleConfig.empty())) {
            IntermediateDataSetID result = new IntermediateDataSetID();
            int first = connectionIndexOf(master, partition(result));
            int second = connectionIndexOf(master, partition(result));
            int other = connectionIndexOf(master, partition(new IntermediateDataSetID()));

            assertEquals(first, second, "one connection per intermediate result, as on Flink's own shuffle");
            assertNotEquals(first, other, "another result goes over a connection of its own");
        }
    }

    private int connectionIndexOf(SluiceShuffleMaster master, PartitionDescriptor partition) throws Exception {
        SluiceShuffleDescriptor descriptor = master.registerPartitionWithProducer(new JobID(), partition, producer).get();
        return assertInstanceOf(NettyShuffleDescriptor.class, descriptor.sluiceDescriptor()).connectionIndex();
    }

    @Test
    void sluicePartitionIds_areTheSameForTheSameAttempt_andDifferAcrossAttempts() {
        IntermediateResultPartitionID partition = new IntermediateResultPartitionID();
        ExecutionAttemptID attempt = ExecutionAttemptID.randomId();

        assertEquals(PartitionIds.toSluice(new ResultPartitionID(partition, attempt)),
                PartitionIds.toSluice(new ResultPartitionID(partition, attempt)));
        assertNotEquals(PartitionIds.toSluice(new ResultPartitionID(partition, attempt)),
                PartitionIds.toSluice(new ResultPartitionID(partition, ExecutionAttemptID.randomId())));
    }

    private static PartitionDescriptor partition(ResultPartitionType type) {
        return new PartitionDescriptor(new IntermediateDataSetID(), 4, new IntermediateResultPartitionID(), type, 4,
                0, false, true, false);
    }

    private static PartitionDescriptor partition(IntermediateDataSetID result) {
        return new PartitionDescriptor(result, 4, new IntermediateResultPartitionID(),
                ResultPartitionType.PIPELINED_BOUNDED, 4, 0, false, true, false);
    }
}
