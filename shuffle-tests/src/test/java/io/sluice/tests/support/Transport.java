package io.sluice.tests.support;

import io.netty.channel.epoll.Epoll;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

import java.util.stream.Stream;

/**
 * The {@code shuffle.netty.transport} a test's environments talk over. Remote tests run once per transport that
 * works on this machine ({@link EveryTransport}, {@link EveryTcpTransport}) and hand it to
 * {@link ShuffleFixture#start(Transport, ShuffleConfig)}.
 * Immutable; any thread.
 */
public enum Transport {

    /** Java NIO sockets over loopback TCP; available everywhere. */
    NIO("nio", true),
    /** Netty's native epoll over loopback TCP; only where its native library loads (Linux). */
    EPOLL("epoll", true),
    /** Netty's in-JVM local transport: the whole pipeline, no TCP port. */
    LOCAL("local", false);

    private final String option;
    private final boolean tcp;

    Transport(String option, boolean tcp) {
        this.option = option;
        this.tcp = tcp;
    }

    /** @return the value of {@code shuffle.netty.transport} */
    public String option() {
        return option;
    }

    /** @return whether the environments listen on a real TCP port that a plain socket can reach */
    public boolean isTcp() {
        return tcp;
    }

    /** @return whether this transport can run here */
    public boolean isAvailable() {
        return this != EPOLL || Epoll.isAvailable();
    }

    /**
     * @param config a test's configuration
     * @return the same, with {@code shuffle.netty.transport} set to this transport
     */
    public ShuffleConfig configure(ShuffleConfig config) {
        return config.with(ShuffleOptions.NETTY_TRANSPORT, option);
    }

    /** @return the transports that can run here; the source of {@link EveryTransport} */
    public static Stream<Transport> available() {
        return Stream.of(values()).filter(Transport::isAvailable);
    }

    /** @return the TCP transports that can run here; the source of {@link EveryTcpTransport} */
    public static Stream<Transport> availableTcp() {
        return available().filter(Transport::isTcp);
    }
}
