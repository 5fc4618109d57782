package io.sluice.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.api.ShuffleServiceFactory;
import java.util.ServiceLoader;

/** Lets a test that moves real data skip while no shuffle implementation is on the class path. */
final class ShuffleRuntime {

    private ShuffleRuntime() {
    }

    /** Skips the calling test unless ServiceLoader finds an {@link ShuffleServiceFactory}. */
    static void assumeAvailable() {
        assumeTrue(ServiceLoader.load(ShuffleServiceFactory.class).findFirst().isPresent(),
                "no io.sluice.api.ShuffleServiceFactory on the class path");
    }
}
