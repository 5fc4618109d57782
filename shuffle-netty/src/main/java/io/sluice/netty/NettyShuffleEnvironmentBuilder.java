package io.sluice.netty;

import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.transport.ChannelPipelineHook;

import java.util.Objects;

/**
 * Internal, for tests and tools (fault injection, tracing), not part of the API contract: builds the same environment
 * as {@link NettyShuffleServiceFactory#createShuffleEnvironment}, with a {@link ChannelPipelineHook} that sees every
 * channel of its transport, and reaches an environment's network memory. Engines use the factory.
 *
 * <p>Not thread-safe: one thread builds.
 */
public final class NettyShuffleEnvironmentBuilder {

    private final ShuffleEnvironmentContext context;
    private ChannelPipelineHook pipelineHook = ChannelPipelineHook.NONE;

    /** @param context what the environment is created from, as for the factory */
    public NettyShuffleEnvironmentBuilder(ShuffleEnvironmentContext context) {
        this.context = Objects.requireNonNull(context, "context");
    }

    /**
     * @param hook sees every channel the environment's transport opens or accepts, once its pipeline is built
     * @return this builder
     */
    public NettyShuffleEnvironmentBuilder pipelineHook(ChannelPipelineHook hook) {
        this.pipelineHook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /**
     * @return a new environment; nothing listens until {@link ShuffleEnvironment#start()}
     * @throws IllegalArgumentException listing every problem of the configuration (TLS included, as for the factory)
     */
    public ShuffleEnvironment build() {
        return new NettyShuffleServiceFactory().create(context, pipelineHook);
    }

    /**
     * The network memory of an environment, for tests that put it under pressure (take segments through a pool of
     * their own) or inspect it. Whatever a caller takes it must give back, or the environment never frees it.
     *
     * @param environment an environment of this implementation
     * @return its global pool
     * @throws IllegalArgumentException for an environment of another implementation
     */
    public static NetworkBufferPool networkBufferPool(ShuffleEnvironment environment) {
        if (environment instanceof NettyShuffleEnvironment netty) {
            return netty.networkBufferPool();
        }
        throw new IllegalArgumentException(environment + " is not a Netty shuffle environment (it is a "
                + environment.getClass().getName() + ")");
    }
}
