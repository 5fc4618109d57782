package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;

import org.junit.jupiter.api.Test;

/** Finding the shuffle service through the loader (docs/behaviours.md section 14, SSL-1). */
class NettyShuffleServiceFactoryTest {

    /** A factory an engine could name instead of the default; never asked to create anything here. */
    public static final class CustomFactory implements ShuffleServiceFactory {

        @Override
        public ShuffleMaster createShuffleMaster(ShuffleConfig config) {
            throw new UnsupportedOperationException("not used by the test");
        }

        @Override
        public ShuffleEnvironment createShuffleEnvironment(ShuffleEnvironmentContext context) {
            throw new UnsupportedOperationException("not used by the test");
        }
    }

    // SSL-1
    @Test
    void noConfig_loadsTheNettyFactory_registeredInMetaInfServices() throws Exception {
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(ShuffleConfig.empty());

        assertInstanceOf(NettyShuffleServiceFactory.class, factory);
    }

    // SSL-1
    @Test
    void customFactoryClassName_loadsThatFactory() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS, CustomFactory.class.getName());

        assertInstanceOf(CustomFactory.class, ShuffleServiceLoader.load(config));
    }

    // SSL-1
    @Test
    void missingFactoryClass_failsWithTheKeyTheClassAndTheFactoriesFound() {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS, "com.example.NoSuchFactory");

        ShuffleException error = assertThrows(ShuffleException.class, () -> ShuffleServiceLoader.load(config));

        String message = error.getMessage();
        assertTrue(message.contains("shuffle-service-factory.class"), message);
        assertTrue(message.contains("com.example.NoSuchFactory"), message);
        assertTrue(message.contains(NettyShuffleServiceFactory.class.getName()), message);
        assertInstanceOf(ClassNotFoundException.class, error.getCause());
    }

    @Test
    void createShuffleMaster_givesANettyMaster_withNothingRegistered() {
        try (ShuffleMaster master = new NettyShuffleServiceFactory().createShuffleMaster(ShuffleConfig.empty())) {
            assertEquals(0, ((NettyShuffleMaster) master).registeredPartitions());
        }
    }
}
