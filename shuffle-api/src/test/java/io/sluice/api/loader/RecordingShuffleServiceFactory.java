package io.sluice.api.loader;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleServiceFactory;

/**
 * Base of the test factories: creates nothing, only tells which factory the loader picked.
 * Registered subclasses are listed in META-INF/services of the test resources.
 */
public abstract class RecordingShuffleServiceFactory implements ShuffleServiceFactory {

    @Override
    public ShuffleMaster createShuffleMaster(ShuffleConfig config) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " is a loader test double");
    }

    @Override
    public ShuffleEnvironment createShuffleEnvironment(ShuffleEnvironmentContext context) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " is a loader test double");
    }
}
