package io.sluice.flink;

import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;

/**
 * Apache Flink's entry point into Sluice: set {@code shuffle-service-factory.class:
 * io.sluice.flink.SluiceShuffleServiceFactory} in Flink's configuration and every pipelined exchange of a streaming
 * job runs over Sluice (docs/flink.md).
 *
 * <p>Flink instantiates this class by name once for the JobManager ({@link #createShuffleMaster}) and once per
 * TaskManager ({@link #createShuffleEnvironment}); in a MiniCluster several TaskManagers share one JVM, so the
 * factory keeps no state and every environment is independent. Stateless; any thread.
 */
public final class SluiceShuffleServiceFactory
        implements ShuffleServiceFactory<SluiceShuffleDescriptor, SluiceResultPartitionWriter, SluiceInputGate> {

    /** Public no-argument constructor: Flink instantiates the factory by class name. */
    public SluiceShuffleServiceFactory() {
    }

    @Override
    public ShuffleMaster<SluiceShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        return new SluiceShuffleMaster(FlinkConfigTranslator.masterConfig(context.getConfiguration()));
    }

    @Override
    public ShuffleEnvironment<SluiceResultPartitionWriter, SluiceInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        return SluiceShuffleEnvironment.create(context);
    }
}
