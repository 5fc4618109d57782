package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.api.loader.FactoryWithoutDefaultConstructor;
import io.sluice.api.loader.FirstRegisteredFactory;
import io.sluice.api.loader.NotAFactory;
import io.sluice.api.loader.SecondRegisteredFactory;
import io.sluice.api.loader.UnregisteredFactory;

import org.junit.jupiter.api.Test;

class ShuffleServiceLoaderTest {

    private static final String FOUND = "factories found in META-INF/services/io.sluice.api.ShuffleServiceFactory: "
            + "io.sluice.api.loader.FirstRegisteredFactory, io.sluice.api.loader.SecondRegisteredFactory";

    @Test
    void defaultKey_namesTheNettyFactory_whichThisClasspathDoesNotHave() {
        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> ShuffleServiceLoader.load(ShuffleConfig.empty()));

        assertEquals("shuffle-service-factory.class = io.sluice.netty.NettyShuffleServiceFactory: class not found; "
                + FOUND, failure.getMessage());
        assertInstanceOf(ClassNotFoundException.class, failure.getCause());
    }

    @Test
    void keyNamingARegisteredFactory_returnsThatOne() throws Exception {
        assertInstanceOf(SecondRegisteredFactory.class, ShuffleServiceLoader.load(
                configNaming(SecondRegisteredFactory.class.getName())));
        assertInstanceOf(FirstRegisteredFactory.class, ShuffleServiceLoader.load(
                configNaming(FirstRegisteredFactory.class.getName())));
    }

    @Test
    void keyWithSurroundingBlanks_stillFindsTheFactory() throws Exception {
        assertInstanceOf(FirstRegisteredFactory.class, ShuffleServiceLoader.load(
                configNaming("  " + FirstRegisteredFactory.class.getName() + " ")));
    }

    @Test
    void factoryNotRegistered_isInstantiatedByName() throws Exception {
        assertInstanceOf(UnregisteredFactory.class, ShuffleServiceLoader.load(
                configNaming(UnregisteredFactory.class.getName())));
    }

    @Test
    void unknownClass_failsNamingKeyClassAndFactoriesFound() {
        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> ShuffleServiceLoader.load(configNaming("com.example.NoSuchFactory")));

        assertEquals("shuffle-service-factory.class = com.example.NoSuchFactory: class not found; " + FOUND,
                failure.getMessage());
    }

    @Test
    void classThatIsNoFactory_failsNamingKeyClassAndFactoriesFound() {
        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> ShuffleServiceLoader.load(configNaming(NotAFactory.class.getName())));

        assertEquals("shuffle-service-factory.class = io.sluice.api.loader.NotAFactory: class does not implement "
                + "io.sluice.api.ShuffleServiceFactory; " + FOUND, failure.getMessage());
    }

    @Test
    void factoryWithoutNoArgumentConstructor_failsSayingSo() {
        ShuffleException failure = assertThrows(ShuffleException.class,
                () -> ShuffleServiceLoader.load(configNaming(FactoryWithoutDefaultConstructor.class.getName())));

        assertEquals("shuffle-service-factory.class = io.sluice.api.loader.FactoryWithoutDefaultConstructor: "
                + "class has no public no-argument constructor; " + FOUND, failure.getMessage());
    }

    private static ShuffleConfig configNaming(String className) {
        return ShuffleConfig.empty().with(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS, className);
    }
}
