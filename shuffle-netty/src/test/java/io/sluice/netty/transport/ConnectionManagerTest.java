package io.sluice.netty.transport;

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
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An environment's transport as a whole: its life cycle, the data port, and the connections it counts on both ends
 * (issue 4, connection manager; docs/behaviours.md section 13).
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
}
