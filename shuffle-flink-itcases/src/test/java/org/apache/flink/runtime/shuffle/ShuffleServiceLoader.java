package org.apache.flink.runtime.shuffle;

import io.sluice.flink.itcases.Injection;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.InstantiationUtil;

/**
 * The injection of Sluice into Flink's own ITCases: a test-only class of the same name, package and signature as
 * flink-runtime's {@code ShuffleServiceLoader}, which shadows it because surefire puts this module's test classes
 * before every dependency on the class path.
 *
 * <p>Flink creates every shuffle through this one static method: the JobManager's shuffle master
 * ({@code JobManagerSharedServices}) and each TaskManager's environment ({@code TaskManagerServices}), whoever
 * builds the MiniCluster ({@code MiniClusterExtension}, {@code MiniClusterWithClientResource}, a test's own
 * {@code new MiniCluster}, a local environment). Flink's configuration has no process-wide defaults a test run
 * could set, so this is the one place where Sluice can be put under every cluster without changing Flink or the
 * tests. Flink's version reads {@code shuffle-service-factory.class} and instantiates it with the context class
 * loader; this one does the same with the class {@link Injection} chooses: Flink's choice unless the run asks for
 * Sluice (system property {@code sluice.itcases.shuffle=sluice}), in which case Flink's default Netty shuffle is
 * replaced by Sluice's factory. A test that configures another shuffle keeps it.
 *
 * <p>Keep the signature in step with the Flink version under test (Flink 2.3: an enum without constants and this
 * one method). Stateless; any thread.
 */
public enum ShuffleServiceLoader {
    ;

    /**
     * Instantiates the shuffle service factory for a JobManager or TaskManager.
     *
     * @param configuration the JobManager's or TaskManager's configuration
     * @return the factory {@link Injection} chooses for the configured {@code shuffle-service-factory.class}
     * @throws FlinkException when the class cannot be loaded or instantiated
     */
    public static ShuffleServiceFactory<?, ?, ?> loadShuffleServiceFactory(Configuration configuration)
            throws FlinkException {
        String configured = configuration.get(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS);
        String chosen = Injection.fromSystemProperties().factoryClass(configured);
        ClassLoader classLoader = Thread.currentThread().getContextClassLoader();
        return InstantiationUtil.instantiate(chosen, ShuffleServiceFactory.class, classLoader);
    }
}
