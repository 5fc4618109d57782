package io.sluice.netty;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.netty.tls.OpenSslSupport;
import io.sluice.netty.tls.TlsContexts;
import io.sluice.netty.transport.ChannelPipelineHook;
import io.sluice.netty.config.EnvironmentConfig;

/**
 * Sluice's default shuffle service: partitions and gates in one environment per process, in-process channels
 * between tasks of the same environment, and a Netty transport with credit-based flow control between
 * environments. Registered in {@code META-INF/services/io.sluice.api.ShuffleServiceFactory}.
 *
 * <p>Stateless; any thread.
 */
public final class NettyShuffleServiceFactory implements ShuffleServiceFactory {

    private final OpenSslSupport openSsl;

    /** For {@link java.util.ServiceLoader}. */
    public NettyShuffleServiceFactory() {
        this(OpenSslSupport.netty());
    }

    /** @param openSsl whether the openssl TLS provider can run (tests stand in for a class path without it) */
    NettyShuffleServiceFactory(OpenSslSupport openSsl) {
        this.openSsl = openSsl;
    }

    @Override
    public ShuffleMaster createShuffleMaster(ShuffleConfig config) {
        return new NettyShuffleMaster(config, openSsl);
    }

    /**
     * Creates an environment; nothing listens until {@link ShuffleEnvironment#start()}.
     *
     * @throws IllegalArgumentException listing every problem of the configuration; with TLS, a keystore or
     *                                  truststore that cannot be used or a wrong password names its option
     */
    @Override
    public ShuffleEnvironment createShuffleEnvironment(ShuffleEnvironmentContext context) {
        return create(context, ChannelPipelineHook.NONE);
    }

    /** The one place an environment is made: its configuration read and checked, its TLS built when asked for. */
    NettyShuffleEnvironment create(ShuffleEnvironmentContext context, ChannelPipelineHook pipelineHook) {
        EnvironmentConfig config = EnvironmentConfig.from(context);
        TlsContexts tls = config.tls() == null || context.localCommunicationOnly() ? null
                : TlsContexts.create(config.tls(), openSsl);
        return new NettyShuffleEnvironment(context, config, tls, pipelineHook);
    }
}
