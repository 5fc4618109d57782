package io.sluice.api;

/**
 * Entry point of a shuffle implementation, found by {@link ShuffleServiceLoader} through
 * {@code META-INF/services/io.sluice.api.ShuffleServiceFactory} or by class name. An
 * implementation has a public no-argument constructor and is safe to use from any thread.
 */
public interface ShuffleServiceFactory {

    /**
     * @param config the coordinator's configuration
     * @return a new coordinator-side master; the caller closes it
     */
    ShuffleMaster createShuffleMaster(ShuffleConfig config);

    /**
     * Creates one environment (one per process or TaskManager). Validates the context's config
     * with {@link ShuffleConfigValidator#validate(ShuffleConfig)}.
     *
     * @param context configuration, identity, memory and bind address of the environment
     * @return a new, not yet started environment; the caller closes it
     * @throws IllegalArgumentException listing every problem of the configuration
     */
    ShuffleEnvironment createShuffleEnvironment(ShuffleEnvironmentContext context);
}
