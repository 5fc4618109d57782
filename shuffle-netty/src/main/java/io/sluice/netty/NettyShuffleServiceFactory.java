package io.sluice.netty;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleServiceFactory;

/**
 * Sluice's default shuffle service: partitions and gates in one environment per process, in-process channels
 * between tasks of the same environment, and a Netty transport with credit-based flow control between
 * environments. Registered in {@code META-INF/services/io.sluice.api.ShuffleServiceFactory}.
 *
 * <p>Stateless; any thread.
 */
public final class NettyShuffleServiceFactory implements ShuffleServiceFactory {

    /** For {@link java.util.ServiceLoader}. */
    public NettyShuffleServiceFactory() {
    }

    @Override
    public ShuffleMaster createShuffleMaster(ShuffleConfig config) {
        return new NettyShuffleMaster();
    }

    /**
     * Creates an environment; nothing listens until {@link ShuffleEnvironment#start()}.
     *
     * @throws IllegalArgumentException listing every problem of the configuration
     */
    @Override
    public ShuffleEnvironment createShuffleEnvironment(ShuffleEnvironmentContext context) {
        return new NettyShuffleEnvironment(context, EnvironmentConfig.from(context));
    }
}
