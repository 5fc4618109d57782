package io.sluice.flink.itcases;

import io.sluice.flink.SluiceInputGate;
import io.sluice.flink.SluiceResultPartitionWriter;
import io.sluice.flink.SluiceShuffleDescriptor;
import io.sluice.flink.SluiceShuffleEnvironment;
import io.sluice.flink.SluiceShuffleServiceFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleMasterContextImpl;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;

import java.util.Map;

/**
 * Sluice's factory as the injection puts it under Flink's ITCases: creates exactly what
 * {@link SluiceShuffleServiceFactory} creates, from the cluster's configuration plus the run's extra options
 * ({@link Injection#options()}, e.g. {@code sluice.shuffle.input.local-channels=false}), and records every
 * TaskManager's environment in {@link SluiceUsage}. Flink instantiates it by name (public no-argument constructor)
 * once for the JobManager and once per TaskManager; stateless apart from the static record. Any thread.
 */
public final class InjectedShuffleServiceFactory
        implements ShuffleServiceFactory<SluiceShuffleDescriptor, SluiceResultPartitionWriter, SluiceInputGate> {

    private final SluiceShuffleServiceFactory delegate = new SluiceShuffleServiceFactory();
    private final Map<String, String> options = Injection.fromSystemProperties().options();

    /** Public no-argument constructor: Flink instantiates the factory by class name. */
    public InjectedShuffleServiceFactory() {
    }

    @Override
    public ShuffleMaster<SluiceShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        ShuffleMasterContext withOptions =
                new ShuffleMasterContextImpl(withOptions(context.getConfiguration()), context::onFatalError);
        return delegate.createShuffleMaster(withOptions);
    }

    @Override
    public ShuffleEnvironment<SluiceResultPartitionWriter, SluiceInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        ShuffleEnvironmentContext withOptions = new ShuffleEnvironmentContext(withOptions(context.getConfiguration()),
                context.getTaskExecutorResourceId(), context.getNetworkMemorySize(),
                context.isLocalCommunicationOnly(), context.getHostAddress(), context.getNumberOfSlots(),
                context.getTmpDirPaths(), context.getEventPublisher(), context.getParentMetricGroup(),
                context.getIoExecutor(), context.getScheduledExecutor());
        SluiceShuffleEnvironment environment =
                (SluiceShuffleEnvironment) delegate.createShuffleEnvironment(withOptions);
        SluiceUsage.record(environment);
        return environment;
    }

    /** A copy of Flink's configuration with the run's options added; Flink's object stays as it was. */
    private Configuration withOptions(Configuration flink) {
        Configuration copy = new Configuration(flink);
        copy.addAll(Configuration.fromMap(options));
        return copy;
    }
}
