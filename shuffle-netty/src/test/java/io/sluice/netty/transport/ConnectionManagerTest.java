package io.sluice.netty.transport;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.SingleInputGate;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An environment's transport as a whole: its life cycle, the data port, and the connections it counts on both ends
 * (NCM-1, NCM-2; docs/behaviours.md section 13).
 */
@Timeout(60)
class ConnectionManagerTest {

    private final LocalConnectionManagers managers = new LocalConnectionManagers();
    private final RemoteChannels channels = new RemoteChannels(16, 4096);

    @AfterEach
    void closeAndCheckForLeaks() {
        channels.closeGates();
        managers.close();
        channels.close();
    }

    @Test
    void clientFactoryBeforeStart_isRefusedSayingWhatToCall_andStartRunsOnce() throws Exception {
        ConnectionManager manager = managers.create("env-a", "local", 0, new ResultPartitionManager());

        IllegalStateException notStarted = assertThrows(IllegalStateException.class, manager::clientFactory);
        assertTrue(notStarted.getMessage().contains("ShuffleEnvironment.start()"), notStarted.getMessage());
        int port = manager.start();
        assertEquals(port, manager.dataAddress().getPort());
        IllegalStateException again = assertThrows(IllegalStateException.class, manager::start);
        assertTrue(again.getMessage().contains("env-a"), again.getMessage());
    }

    @Test
    void tcpPortInUse_failsStartNamingTheOption() throws Exception {
        ConnectionManager first = managers.create("env-a", "nio", 0, new ResultPartitionManager());
        int port = first.start();
        ConnectionManager second = managers.create("env-b", "nio", port, new ResultPartitionManager());

        IOException error = assertThrows(IOException.class, second::start);

        assertTrue(error.getMessage().contains("env-b"), error.getMessage());
        assertTrue(error.getMessage().contains(ShuffleOptions.NETTY_PORT.key()), error.getMessage());
    }

    // PCF-2 (one connection per id, counted on both ends), CH-8 (closed with its last channel)
    @Test
    void openConnections_countsTheSharedConnectionOnBothEnds_untilItsLastChannelCloses() throws Exception {
        ConnectionManager producer = managers.start(RemoteChannels.PRODUCER.value(), new ResultPartitionManager());
        ConnectionManager consumer = managers.start("consumer");
        channels.connectingTo(new ConnectionId(producer.dataAddress(), 0, RemoteChannels.PRODUCER),
                        consumer)
                .backoff(Duration.ofSeconds(5), Duration.ofSeconds(10));
        SingleInputGate gate = channels.gate(3, 1, 0);
        for (int i = 0; i < 3; i++) {
            RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, i));
        }

        Await.until(() -> consumer.openConnections() == 1 && producer.openConnections() == 1,
                "one connection, counted once on each end");

        for (int i = 0; i < 3; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            assertFalse(RemoteChannels.hasError(channel), "channel " + i + " waits for its partition, no failure");
        }
        gate.close();
        Await.until(() -> consumer.openConnections() == 0 && producer.openConnections() == 0,
                "the connection closes with its last channel");
    }

    @Test
    void close_isIdempotent_andLaterConnectsFail() throws Exception {
        ConnectionManager manager = managers.start("env-a", new ResultPartitionManager());
        PartitionRequestClientFactory factory = manager.clientFactory();

        manager.close();
        manager.close();

        assertThrows(TransportException.class,
                () -> factory.createPartitionRequestClient(new ConnectionId(manager.dataAddress(), 0,
                        RemoteChannels.PRODUCER)));
        assertEquals(0, manager.openConnections());
    }

    // NCM-2: a start never hangs on its event loop; one that never runs fails start() within the bind timeout.
    @Test
    @Timeout(20)
    void eventLoopThatNeverRuns_failsStartWithinTheBindTimeout_namingTransportAddressAndOption() {
        ThreadFactory neverRunsTheLoop = loop -> new Thread(() -> { }, "never-runs-the-loop");
        ConnectionManager manager = managers.create("env-a", "local", 0, new ResultPartitionManager(),
                config -> config.with(ShuffleOptions.NETTY_BIND_TIMEOUT, Duration.ofMillis(200)),
                group -> neverRunsTheLoop);

        ShuffleException error = assertThrows(ShuffleException.class, manager::start);

        String message = error.getMessage();
        assertTrue(message.contains("env-a") && message.contains("LOCAL transport"), message);
        assertTrue(message.contains("local:sluice-"), "names the bind address: " + message);
        assertTrue(message.contains("200 ms") && message.contains(ShuffleOptions.NETTY_BIND_TIMEOUT.key()), message);
        assertThrows(IllegalStateException.class, manager::clientFactory, "a failed start leaves no client");
    }

    // PCF-6: the race behind ProducerEnvironmentClosedWhileConnectingTest's hang, made deterministic: the producer's
    // local server closes after the consumer's connect found it in Netty's local registry, before it accepts.
    @Test
    @Timeout(20)
    void localServerClosedBetweenLookupAndAccept_failsTheConnectWithinTheConnectTimeout() throws Exception {
        InetSocketAddress producer = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
        try (ServerClosingWhileAccepting ignored = ServerClosingWhileAccepting.nettys(producer)) {
            TransportException error = connectFails(producer, Duration.ofMillis(200));

            String message = error.getMessage();
            assertTrue(message.contains("200 ms") && message.contains(ShuffleOptions.NETTY_CONNECT_TIMEOUT.key()),
                    message);
        }
    }

    // PCF-6: the same race against the transport's own local data server: it refuses the late connection at once.
    @Test
    @Timeout(20)
    void localDataServerClosedBetweenLookupAndAccept_refusesTheConnectAtOnce() throws Exception {
        InetSocketAddress producer = new InetSocketAddress(InetAddress.getLoopbackAddress(), 2);
        try (ServerClosingWhileAccepting ignored = ServerClosingWhileAccepting.dataServer(producer)) {
            // Longer than the test may take: only the refusal can end the connect in time.
            TransportException error = connectFails(producer, Duration.ofMinutes(5));

            assertTrue(error.getCause() instanceof ClosedChannelException, "refused, not timed out: " + error);
        }
    }

    /** The failure of a new local consumer's connect to {@code producer}, once the consumer's channel is closed. */
    private TransportException connectFails(InetSocketAddress producer, Duration connectTimeout) throws Exception {
        ConnectionManager consumer = managers.create("consumer", "local", 0, new ResultPartitionManager(),
                config -> config.with(ShuffleOptions.NETTY_CONNECT_TIMEOUT, connectTimeout),
                group -> new DefaultThreadFactory(group, true));
        consumer.start();

        TransportException error = assertThrows(TransportException.class,
                () -> consumer.createPartitionRequestClient(new ConnectionId(producer, 0, RemoteChannels.PRODUCER)));

        assertEquals(producer, error.remoteAddress());
        Await.until(() -> consumer.openConnections() == 0, "the consumer's channel is closed");
        return error;
    }
}
