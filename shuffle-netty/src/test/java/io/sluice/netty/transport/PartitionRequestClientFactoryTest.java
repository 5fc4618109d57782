package io.sluice.netty.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.SingleInputGate;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One connection per (producer address, connection index), created once however many channels ask at the same
 * moment, never cached when the connect fails, replaced once closed, and closed with its last channel
 * (docs/behaviours.md section 13, PCF-*, NPC-1, RIC-7). Runs on Netty's local transport against a
 * {@link ScriptedServer}.
 */
@Timeout(60)
class PartitionRequestClientFactoryTest {

    private final LocalConnectionManagers managers = new LocalConnectionManagers();
    private final ConnectionManager consumer = managers.start("consumer");
    private final PartitionRequestClientFactory factory = consumer.clientFactory();
    private final RemoteChannels channels = new RemoteChannels(64, 4096);
    private final List<ScriptedServer> servers = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(16);

    @AfterEach
    void closeAndCheckForLeaks() throws InterruptedException {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
        channels.closeGates();
        managers.close();
        for (ScriptedServer server : servers) {
            server.close();
        }
        channels.close();
        assertEquals(0, consumer.openConnections());
    }

    private ScriptedServer server(InetSocketAddress address) {
        ScriptedServer server = new ScriptedServer(address);
        servers.add(server);
        return server;
    }

    // A consumer environment closed by another thread while a gate's setup waits for a connection still being opened:
    // the waiting request fails instead of waiting for ever
    @Test
    void closedWhileAConnectionIsBeingOpened_everyRequestWaitingForItFails_namingTheConnection() throws Exception {
        CountDownLatch resolving = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        PartitionRequestClientFactory connecting = new PartitionRequestClientFactory(new Bootstrap(), id -> {
            resolving.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return id.address();
        });
        ConnectionId connectionId = new ConnectionId(ScriptedServer.freeAddress(), 0, RemoteChannels.PRODUCER);
        Future<?> opening = threads.submit(() -> connecting.createPartitionRequestClient(connectionId));
        assertTrue(resolving.await(10, TimeUnit.SECONDS), "the first request is opening the connection");
        Future<?> waiting = threads.submit(() -> connecting.createPartitionRequestClient(connectionId));
        Await.holdsThroughout(() -> !waiting.isDone(), "the second request waits for the same connection");

        connecting.close();

        ExecutionException failure = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        TransportException error = assertInstanceOf(TransportException.class, failure.getCause());
        assertTrue(error.getMessage().contains("closed while connecting"), error.getMessage());
        assertEquals(connectionId.address(), error.remoteAddress());
        release.countDown();
        assertInstanceOf(TransportException.class,
                assertThrows(ExecutionException.class, () -> opening.get(10, TimeUnit.SECONDS)).getCause());
    }

    // PCF-1, PCF-4
    @Test
    void failedConnect_reachesEveryCaller_isNotCached_andTheNextRequestConnects() throws Exception {
        InetSocketAddress address = ScriptedServer.freeAddress();
        ConnectionId connectionId = new ConnectionId(address, 0, RemoteChannels.PRODUCER);

        for (int attempt = 0; attempt < 2; attempt++) {
            TransportException error = assertThrows(TransportException.class,
                    () -> factory.createPartitionRequestClient(connectionId));
            assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
            assertEquals(address, error.remoteAddress());
        }

        ScriptedServer server = server(address);
        PartitionRequestClient client = factory.createPartitionRequestClient(connectionId);

        assertTrue(client.isActive());
        server.nextConnection();
        assertEquals(1, server.acceptedConnections());
    }

    // PCF-2: one client per connection id, "created once even when many channels ask at the same moment"
    @Test
    void concurrentRequestsForOneConnectionId_shareOneConnection_anotherIndexGetsItsOwn() throws Exception {
        ScriptedServer server = server(ScriptedServer.freeAddress());
        int callers = 16;
        CyclicBarrier start = new CyclicBarrier(callers);
        List<Future<PartitionRequestClient>> requests = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            requests.add(threads.submit(() -> {
                start.await();
                return factory.createPartitionRequestClient(server.connectionId(0));
            }));
        }
        Map<PartitionRequestClient, Boolean> distinct = new IdentityHashMap<>();
        for (Future<PartitionRequestClient> request : requests) {
            distinct.put(request.get(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS), true);
        }

        assertEquals(1, distinct.size(), "one client for every caller");
        PartitionRequestClient other = factory.createPartitionRequestClient(server.connectionId(1));
        assertFalse(distinct.containsKey(other), "connection index 1 is another connection");
        server.nextConnection();
        server.nextConnection();
        assertEquals(2, server.acceptedConnections());
        Await.until(() -> consumer.openConnections() == 2, "the consumer counts its two connections");
    }

    // PCF-3
    @Test
    void connectionClosedByTheServer_isNotHandedOutAgain_theNextRequestConnectsAnew() throws Exception {
        ScriptedServer server = server(ScriptedServer.freeAddress());
        PartitionRequestClient first = factory.createPartitionRequestClient(server.connectionId(0));
        Channel accepted = server.nextConnection();

        accepted.close().syncUninterruptibly();
        Await.until(() -> !first.isActive(), "the client sees its connection closed");
        PartitionRequestClient second = factory.createPartitionRequestClient(server.connectionId(0));

        assertNotSame(first, second);
        assertTrue(second.isActive());
        server.nextConnection();
        assertEquals(2, server.acceptedConnections());
    }

    // NPC-1, CH-8: counted references; the last channel closes the connection, which is then not reused
    @Test
    void lastChannelLetsGo_closeRequestClosesTheConnection_andTheFactoryConnectsAnew() throws Exception {
        ScriptedServer server = server(ScriptedServer.freeAddress());
        SingleInputGate gate = channels.gate(2, 1, 0);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        RemoteInputChannel second = RemoteChannels.channel(gate, 1);
        PartitionRequestClient client = factory.createPartitionRequestClient(server.connectionId(0));
        assertSame(client, factory.createPartitionRequestClient(server.connectionId(0)));

        client.close(first, true);
        assertEquals(new CancelPartitionRequest(first.inputChannelId()), server.next(CancelPartitionRequest.class));
        assertTrue(client.isActive(), "another channel still uses the connection");

        client.close(second, true);
        server.next(CloseRequest.class);
        Await.until(() -> !client.isActive(), "the connection closes after the CloseRequest");

        PartitionRequestClient next = factory.createPartitionRequestClient(server.connectionId(0));
        assertNotSame(client, next);
        assertTrue(next.isActive());
    }

    // Environment close: every connection closes, later requests fail at once
    @Test
    void closedFactory_closesItsConnections_andRefusesNewOnes() throws Exception {
        ScriptedServer server = server(ScriptedServer.freeAddress());
        PartitionRequestClient client = factory.createPartitionRequestClient(server.connectionId(0));

        factory.close();

        Await.until(() -> !client.isActive(), "the connection closes");
        TransportException error = assertThrows(TransportException.class,
                () -> factory.createPartitionRequestClient(server.connectionId(0)));
        assertTrue(error.getMessage().contains("closed"), error.getMessage());
    }

    // RIC-7
    @Test
    void channelWhoseConnectFails_reportsTransportException_namingItsPartitionAndTheProducer() throws Exception {
        ConnectionId nowhere = new ConnectionId(ScriptedServer.freeAddress(), 0, RemoteChannels.PRODUCER);
        channels.connectingTo(nowhere, consumer);
        SingleInputGate gate = channels.gate(1, 1, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        RemoteChannels.requestSubpartition(channel);

        TransportException error = assertThrows(TransportException.class, () -> gate.pollNext());
        assertTrue(error.getMessage().contains(channel.partitionId().toString()), error.getMessage());
        assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
        assertEquals(nowhere.address(), error.remoteAddress());
    }
}
