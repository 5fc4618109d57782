package io.sluice.netty.transport;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.sluice.api.ShuffleOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transports the environment can run on, chosen by {@code shuffle.netty.transport}.
 */
public enum TransportType {
    /** Java NIO sockets; works everywhere. */
    NIO,
    /** Linux native epoll; fewer copies and syscalls than NIO. */
    EPOLL,
    /** Netty's in-JVM transport: the whole pipeline without TCP, for tests and single-process engines. */
    LOCAL;

    private static final Logger LOG = LoggerFactory.getLogger(TransportType.class);

    /**
     * The transport for an option value: {@code auto} picks epoll where its native library loads and falls back
     * to nio with one INFO line.
     *
     * @throws IllegalArgumentException for {@code epoll} where it does not load, or an unknown value
     */
    public static TransportType fromOption(String value) {
        switch (value) {
            case "nio":
                return NIO;
            case "local":
                return LOCAL;
            case "epoll":
                if (!Epoll.isAvailable()) {
                    throw new IllegalArgumentException(ShuffleOptions.NETTY_TRANSPORT.key() + ": epoll does not load "
                            + "on this machine (" + Epoll.unavailabilityCause() + "); use auto or nio");
                }
                return EPOLL;
            case "auto":
                if (Epoll.isAvailable()) {
                    return EPOLL;
                }
                LOG.info("Native epoll transport unavailable ({}); using nio", String.valueOf(Epoll.unavailabilityCause()));
                return NIO;
            default:
                throw new IllegalArgumentException(ShuffleOptions.NETTY_TRANSPORT.key() + ": unknown transport '" + value
                        + "'; use auto, nio, epoll or local");
        }
    }

    IoHandlerFactory ioHandlerFactory() {
        return switch (this) {
            case NIO -> NioIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case LOCAL -> LocalIoHandler.newFactory();
        };
    }

    Class<? extends ServerChannel> serverChannelClass() {
        return switch (this) {
            case NIO -> NioServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case LOCAL -> LocalDataServerChannel.class;
        };
    }

    Class<? extends Channel> clientChannelClass() {
        return switch (this) {
            case NIO -> NioSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case LOCAL -> LocalChannel.class;
        };
    }
}
