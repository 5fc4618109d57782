package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.tests.support.Wiring;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The shuffle of one run: its environments and its shuffle master, started together from the run's configuration
 * and closed together, and the producers' writers and the consumers' gates, wired through the public API as an
 * engine wires them. Producer p writes one partition with a subpartition per consumer; consumer c reads
 * subpartition c of every partition. Built, used and closed by the main thread.
 */
final class RunShuffle implements AutoCloseable {

    /**
     * The partitions a run's producers write. Immutable value.
     *
     * @param descriptors partition p's descriptor, in producer order
     * @param writers producer p's writer, set up; its task finishes and closes it
     */
    record Partitions(List<ShuffleDescriptor> descriptors, List<ResultPartitionWriter> writers) {

        /** @return the partitions' ids, in producer order */
        List<ResultPartitionId> ids() {
            List<ResultPartitionId> ids = new ArrayList<>();
            for (ShuffleDescriptor partition : descriptors) {
                ids.add(partition.partitionId());
            }
            return ids;
        }
    }

    private final Environments environments;
    private final ShuffleMaster master;

    private RunShuffle(Environments environments, ShuffleMaster master) {
        this.environments = environments;
        this.master = master;
    }

    /**
     * Loads the shuffle implementation {@code config} names, starts one environment per context and a shuffle
     * master; when the master cannot be made, the environments are closed again.
     *
     * @param config the library configuration of the run
     * @param contexts one per environment
     * @return the started shuffle; close it
     * @throws IOException when an environment cannot start
     */
    static RunShuffle start(ShuffleConfig config, List<ShuffleEnvironmentContext> contexts) throws IOException {
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        Environments environments = Environments.start(factory, contexts);
        try {
            return new RunShuffle(environments, factory.createShuffleMaster(config));
        } catch (RuntimeException | Error e) {
            try (environments) { // closed on the way out, as try-with-resources does: a close failure is suppressed
                throw e;
            }
        }
    }

    /**
     * @param config the library configuration of every environment
     * @param count how many environments
     * @return the contexts of the environments {@code bench-env-0} to {@code bench-env-(count - 1)}
     */
    static List<ShuffleEnvironmentContext> contexts(ShuffleConfig config, int count) {
        List<ShuffleEnvironmentContext> contexts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            contexts.add(ShuffleEnvironmentContext.of(config, new ResourceId("bench-env-" + i)));
        }
        return contexts;
    }

    /** @return the environments, in the order of the contexts */
    Environments environments() {
        return environments;
    }

    /**
     * Registers a new partition for each producer, produced in the environment {@code environmentOf} gives it, and
     * sets up its writer, {@code producer-p}.
     *
     * @param producers how many producers
     * @param consumers the subpartitions of each partition
     * @param type pipelined or blocking
     * @param environmentOf the environment of producer p
     * @return the partitions and their writers
     * @throws IOException when the master does not register a partition or a writer cannot be set up
     * @throws InterruptedException when interrupted while registering
     */
    Partitions produce(int producers, int consumers, PartitionType type, IntFunction<ShuffleEnvironment> environmentOf)
            throws IOException, InterruptedException {
        List<ShuffleDescriptor> descriptors = new ArrayList<>();
        List<ResultPartitionWriter> writers = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            ShuffleEnvironment environment = environmentOf.apply(p);
            ShuffleDescriptor partition = register(ResultPartitionId.random(), type, consumers,
                    new ProducerDescriptor(environment.resourceId(), environment.dataAddress()));
            descriptors.add(partition);
            ResultPartitionWriter writer = Wiring.writer(environment, "producer-" + p, partition, type, consumers);
            writer.setup();
            writers.add(writer);
        }
        return new Partitions(descriptors, writers);
    }

    /**
     * Registers a partition with this run's master, as the master of a consumer learns of a partition written
     * elsewhere.
     *
     * @param id the partition
     * @param type pipelined or blocking
     * @param subpartitions its subpartitions
     * @param producer the environment that writes it
     * @return its descriptor
     * @throws ShuffleException when the master fails or does not answer
     * @throws InterruptedException when interrupted while waiting for it
     */
    ShuffleDescriptor register(ResultPartitionId id, PartitionType type, int subpartitions, ProducerDescriptor producer)
            throws ShuffleException, InterruptedException {
        return Wiring.register(master, id, type, subpartitions, producer);
    }

    /**
     * Sets up one gate per consumer, {@code consumer-c}, in the environment {@code environmentOf} gives it, reading
     * subpartition c of every partition.
     *
     * @param consumers how many consumers
     * @param partitions what each consumer reads, one input channel per partition
     * @param environmentOf the environment of consumer c
     * @return gate c for consumer c; each consumer's task owns and closes its gate
     * @throws IOException when a gate cannot be set up
     */
    List<InputGate> consume(int consumers, List<ShuffleDescriptor> partitions,
                            IntFunction<ShuffleEnvironment> environmentOf) throws IOException {
        List<InputGate> gates = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            InputGate gate = Wiring.gate(environmentOf.apply(c), "consumer-" + c, c, partitions);
            gate.setup();
            gates.add(gate);
        }
        return gates;
    }

    /** Closes the master, then every environment, as try-with-resources closes them: later failures suppressed. */
    @Override
    public void close() {
        try (environments; master) {
            // Closing both is all there is to do.
        }
    }
}
