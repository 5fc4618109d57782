package io.sluice.netty.transport;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.sluice.api.ShuffleOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which Netty transport each value of {@code shuffle.netty.transport} selects. */
class TransportTypeTest {

    @Test
    void nioAndLocal_selectTheirChannelClasses() {
        assertEquals(TransportType.NIO, TransportType.fromOption("nio"));
        assertEquals(NioServerSocketChannel.class, TransportType.NIO.serverChannelClass());
        assertEquals(NioSocketChannel.class, TransportType.NIO.clientChannelClass());
        assertEquals(TransportType.LOCAL, TransportType.fromOption("local"));
        assertEquals(LocalDataServerChannel.class, TransportType.LOCAL.serverChannelClass());
        assertEquals(LocalChannel.class, TransportType.LOCAL.clientChannelClass());
    }

    @Test
    void auto_picksEpollWhereItLoads_elseNio() {
        assertEquals(Epoll.isAvailable() ? TransportType.EPOLL : TransportType.NIO, TransportType.fromOption("auto"));
    }

    @Test
    void epoll_isChosenWhereItLoads_andRefusedWithTheReasonElsewhere() {
        if (Epoll.isAvailable()) {
            assertEquals(TransportType.EPOLL, TransportType.fromOption("epoll"));
            return;
        }
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> TransportType.fromOption("epoll"));
        assertTrue(error.getMessage().contains(ShuffleOptions.NETTY_TRANSPORT.key()), error.getMessage());
        assertTrue(error.getMessage().contains("use auto or nio"), error.getMessage());
    }

    @Test
    void unknownValue_isRefusedNamingTheOptionAndTheChoices() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> TransportType.fromOption("kqueue"));
        assertEquals(ShuffleOptions.NETTY_TRANSPORT.key() + ": unknown transport 'kqueue'; use auto, nio, epoll or "
                + "local", error.getMessage());
    }
}
