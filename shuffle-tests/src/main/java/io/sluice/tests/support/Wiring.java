package io.sluice.tests.support;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMaster;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The few calls that connect producers and consumers through the public API, as an engine's
 * coordinator and task managers would make them. Stateless; any thread.
 */
public final class Wiring {

    /** A shuffle master answers from memory; a registration this slow is a hang. */
    private static final long REGISTER_TIMEOUT_SECONDS = 30;

    private Wiring() {
    }

    /**
     * Registers a pipelined partition with its producer and waits for the descriptor.
     *
     * @param master the shuffle master
     * @param id the partition's id
     * @param subpartitions one per consumer
     * @param producer where the partition lives
     * @return what consumers read it with
     * @throws ShuffleException when the master fails or does not answer
     * @throws InterruptedException when interrupted while waiting
     */
    public static ShuffleDescriptor register(ShuffleMaster master, ResultPartitionId id, int subpartitions,
                                             ProducerDescriptor producer) throws ShuffleException, InterruptedException {
        return register(master, id, PartitionType.PIPELINED_BOUNDED, subpartitions, producer);
    }

    /** Like {@link #register(ShuffleMaster, ResultPartitionId, int, ProducerDescriptor)} for any partition type. */
    public static ShuffleDescriptor register(ShuffleMaster master, ResultPartitionId id, PartitionType type,
                                             int subpartitions, ProducerDescriptor producer)
            throws ShuffleException, InterruptedException {
        return register(master, id, type, subpartitions, 0, producer);
    }

    /**
     * Like {@link #register(ShuffleMaster, ResultPartitionId, PartitionType, int, ProducerDescriptor)}, read over
     * the connection of {@code connectionIndex} (consumers of partitions with different indexes towards one
     * producer use different connections).
     */
    public static ShuffleDescriptor register(ShuffleMaster master, ResultPartitionId id, PartitionType type,
                                             int subpartitions, int connectionIndex, ProducerDescriptor producer)
            throws ShuffleException, InterruptedException {
        PartitionDescriptor partition = new PartitionDescriptor(id, type, subpartitions, connectionIndex);
        try {
            return master.registerPartitionWithProducer(partition, producer).get(REGISTER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ShuffleException("registering partition " + id + " of " + producer + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new ShuffleException("registering partition " + id + " of " + producer + " got no answer in "
                    + REGISTER_TIMEOUT_SECONDS + " s", e);
        }
    }

    /**
     * @param environment where the producer runs
     * @param ownerName the producing task's name
     * @param descriptor the registered partition
     * @param subpartitions one per consumer
     * @return the writer, not set up yet; the caller owns and closes it
     */
    public static ResultPartitionWriter writer(ShuffleEnvironment environment, String ownerName,
                                               ShuffleDescriptor descriptor, int subpartitions) {
        return writer(environment, ownerName, descriptor, PartitionType.PIPELINED_BOUNDED, subpartitions);
    }

    /** Like {@link #writer(ShuffleEnvironment, String, ShuffleDescriptor, int)} for any partition type. */
    public static ResultPartitionWriter writer(ShuffleEnvironment environment, String ownerName,
                                               ShuffleDescriptor descriptor, PartitionType type, int subpartitions) {
        ResultPartitionDeploymentDescriptor deployment =
                new ResultPartitionDeploymentDescriptor(descriptor, type, subpartitions);
        return environment.createResultPartitionWriters(ownerName, List.of(deployment)).get(0);
    }

    /**
     * @param environment where the consumer runs
     * @param ownerName the consuming task's name
     * @param subpartition the subpartition this consumer reads of every partition
     * @param partitions the partitions to read; channel i reads partitions.get(i)
     * @return the gate, not set up yet; the caller owns and closes it
     */
    public static InputGate gate(ShuffleEnvironment environment, String ownerName, int subpartition,
                                 List<ShuffleDescriptor> partitions) {
        InputGateDeploymentDescriptor deployment = new InputGateDeploymentDescriptor(subpartition, partitions);
        return environment.createInputGates(ownerName, List.of(deployment)).get(0);
    }
}
