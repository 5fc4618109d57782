package io.sluice.flink.testing;

import io.sluice.flink.SluiceInputGate;
import io.sluice.flink.SluiceResultPartitionWriter;
import io.sluice.flink.SluiceShuffleDescriptor;
import io.sluice.flink.SluiceShuffleEnvironment;
import io.sluice.flink.SluiceShuffleServiceFactory;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Sluice factory for tests: creates exactly what {@link SluiceShuffleServiceFactory} creates and remembers each
 * TaskManager's environment, so that a test can check the memory of the TaskManagers of its MiniCluster. The list
 * is static because Flink instantiates the factory by class name; tests clear it per cluster. Any thread.
 */
public final class RecordingShuffleServiceFactory
        implements ShuffleServiceFactory<SluiceShuffleDescriptor, SluiceResultPartitionWriter, SluiceInputGate> {

    private static final List<SluiceShuffleEnvironment> ENVIRONMENTS = new CopyOnWriteArrayList<>();

    private final SluiceShuffleServiceFactory delegate = new SluiceShuffleServiceFactory();

    /** @return the environments created since the last {@link #clear()}, in creation (TaskManager) order */
    public static List<SluiceShuffleEnvironment> environments() {
        return List.copyOf(ENVIRONMENTS);
    }

    /** Forgets the environments of an earlier cluster. */
    public static void clear() {
        ENVIRONMENTS.clear();
    }

    @Override
    public ShuffleMaster<SluiceShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        return delegate.createShuffleMaster(context);
    }

    @Override
    public ShuffleEnvironment<SluiceResultPartitionWriter, SluiceInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        SluiceShuffleEnvironment environment =
                (SluiceShuffleEnvironment) delegate.createShuffleEnvironment(context);
        ENVIRONMENTS.add(environment);
        return environment;
    }
}
