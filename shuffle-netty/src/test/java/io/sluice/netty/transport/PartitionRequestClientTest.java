package io.sluice.netty.transport;

import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.channel.Channel;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.TransportException;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.SingleInputGate;
import io.sluice.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remote channel and its shared client over a real (local-transport) connection to a {@link ScriptedServer}: the
 * requests, retries, credit, task events, cancellations and close requests that reach the producer's server, and
 * what the channel makes of a connection that goes away (docs/behaviours.md sections 11 to 13, NPC-*, CH-7, CH-8,
 * CTE-3).
 */
@Timeout(60)
class PartitionRequestClientTest {

    private final LocalConnectionManagers managers = new LocalConnectionManagers();
    private final ConnectionManager consumer = managers.start("consumer");
    private final ScriptedServer server = new ScriptedServer();
    private final RemoteChannels channels = new RemoteChannels(64, 4096)
            .connectingTo(server.connectionId(0), consumer)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(4));
    private final BufferRecycler senderBuffers = mock(BufferRecycler.class);

    @AfterEach
    void closeAndCheckForLeaks() {
        channels.closeGates();
        managers.close();
        server.close();
        channels.close();
    }

    // NPC-2, RIC-4, RIC-5
    @Test
    void partitionNotFound_eachRetryIsAFreshRequestWithFullCredit_untilTheMaxBackoff_thenTheChannelFails()
            throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RemoteChannels.requestSubpartition(channel);
        Channel connection = server.nextConnection();
        PartitionRequest first = server.next(PartitionRequest.class);
        assertEquals(new PartitionRequest(channel.partitionId(), 0, channel.inputChannelId(), 2), first);

        for (int retry = 1; retry <= 3; retry++) {
            server.send(connection, notFound(channel));
            assertEquals(first, server.next(PartitionRequest.class), "retry " + retry);
        }
        server.send(connection, notFound(channel));

        PartitionNotFoundException error = AwaitGate.failure(gate, PartitionNotFoundException.class);
        assertEquals(channel.partitionId(), error.partitionId());
        assertEquals(List.of(1L, 2L, 4L), channels.timer().delaysMillis());
    }

    // NPC-3
    @Test
    void requestingTwice_sendsOneRequest_andTheChannelStillReceives() throws Exception {
        // One exclusive buffer: once it is received the producer holds no credit, so its recycle is announced at
        // once (with more, the credit would wait for the next buffer the client reads).
        SingleInputGate gate = channels.gate(1, 1, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);

        RemoteChannels.requestSubpartition(channel);
        RemoteChannels.requestSubpartition(channel);
        gate.sendTaskEvent(text("marker"));

        Channel connection = server.nextConnection();
        server.next(PartitionRequest.class);
        assertEquals("marker", text(server.next(TaskEventRequest.class)), "no second request before the marker");
        server.send(connection, data(channel, 0, 0, "payload"));
        BufferOrEvent received = AwaitGate.next(gate);
        assertEquals("payload", StandardCharsets.UTF_8.decode(received.data()).toString());
        received.recycle();
        gate.sendTaskEvent(text("second marker"));
        assertEquals(new AddCredit(1, channel.inputChannelId()), server.next(AddCredit.class),
                "the recycled exclusive buffer is credit again");
        assertEquals("second marker", text(server.next(TaskEventRequest.class)), "no cancel: the channel is known");
    }

    // CH-7 (the channel announces its own credit through its client)
    @Test
    void floatingBuffersBorrowedForABacklog_reachTheServerAsOneAddCredit() throws Exception {
        SingleInputGate gate = channels.gate(1, 2, 4);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        RemoteChannels.requestSubpartition(channel);
        Channel connection = server.nextConnection();
        server.next(PartitionRequest.class);

        server.send(connection, data(channel, 0, 3, "first of four"));

        assertEquals(new AddCredit(4, channel.inputChannelId()), server.next(AddCredit.class));
        BufferOrEvent received = AwaitGate.next(gate);
        received.recycle();
        assertEquals(0, channel.unannouncedCredit());
    }

    // CH-8, SRV-4 (client side)
    @Test
    void closedGate_cancelsTheRequestsItsChannelsStillHad_andTheLastOneClosesTheConnection() throws Exception {
        SingleInputGate gate = channels.gate(2, 2, 0);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        Channel connection = requestAll(gate);

        gate.close();

        assertEquals(new CancelPartitionRequest(first.inputChannelId()), server.next(CancelPartitionRequest.class));
        server.next(CloseRequest.class);
        Await.until(() -> !connection.isActive(), "the connection closes after the last channel");
        Await.until(() -> consumer.openConnections() == 0, "the consumer has no connection left");
        assertEquals(64, channels.globalPool().getNumberOfAvailableMemorySegments(), "every exclusive buffer is back");
    }

    // CH-8 (a channel read to its end needs no cancel), task events after a channel finished
    @Test
    void channelReadToItsEnd_letsGoWithoutCancel_andTaskEventsStillReachTheOthers() throws Exception {
        SingleInputGate gate = channels.gate(2, 2, 0);
        RemoteInputChannel finished = RemoteChannels.channel(gate, 0);
        RemoteInputChannel running = RemoteChannels.channel(gate, 1);
        Channel connection = requestAll(gate);

        Buffer endOfPartition = EventSerializer.endOfPartition();
        server.send(connection, new BufferResponse(endOfPartition, finished.inputChannelId(), 0, 0,
                DataType.EVENT_BUFFER, endOfPartition.readableBytes()));
        AwaitGate.readUntil(gate, finished::isReleased, "the gate reads the end of the first channel's partition");
        gate.sendTaskEvent(text("after the end"));

        TaskEventRequest event = server.next(TaskEventRequest.class);
        assertEquals(running.inputChannelId(), event.receiverId(), "no cancel for the finished channel first");
        assertEquals("after the end", text(event));
        assertTrue(connection.isActive(), "the running channel keeps the connection");
    }

    // CTE-3 over a real connection
    @Test
    void serverHangsUp_everyChannelOfTheConnectionFailsWithTransportException() throws Exception {
        SingleInputGate gate = channels.gate(2, 1, 0);
        Channel connection = requestAll(gate);

        connection.close().syncUninterruptibly();

        TransportException error = AwaitGate.failure(gate, TransportException.class);
        assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
        assertTrue(error.getMessage().contains("closed"), error.getMessage());
        for (int i = 0; i < 2; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            Await.until(() -> RemoteChannels.hasError(channel), "channel " + channel.channelIndex() + " fails");
            assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(channel));
        }
    }

    // SIG-5: a task event to a producer the channel could not reach reports why, as its reads do
    @Test
    void taskEventOfAChannelWhoseConnectFailed_throwsTheConnectFailure_aTransportException() throws Exception {
        SingleInputGate gate = channels.gate(1, 1, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        server.close(); // nobody listens at the producer's address any more

        RemoteChannels.requestSubpartition(channel);
        Await.until(() -> RemoteChannels.hasError(channel), "the request fails to connect");

        TransportException failure = assertThrows(TransportException.class, () -> gate.sendTaskEvent(text("marker")));
        assertTrue(failure.getMessage().contains("cannot connect"), failure.getMessage());
        assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(channel), "its reads say the same");
    }

    // ------------------------------------------------------------------------------------------------------------

    /** Every channel of {@code gate} requests its partition; returns the server's end of their one connection. */
    private Channel requestAll(SingleInputGate gate) throws Exception {
        for (int i = 0; i < gate.numberOfInputChannels(); i++) {
            RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, i));
        }
        Channel connection = server.nextConnection();
        for (int i = 0; i < gate.numberOfInputChannels(); i++) {
            server.next(PartitionRequest.class);
        }
        return connection;
    }

    private static ErrorResponse notFound(RemoteInputChannel channel) {
        return new ErrorResponse(ErrorKind.PARTITION_NOT_FOUND, "not registered", channel.partitionId(),
                channel.inputChannelId());
    }

    private BufferResponse data(RemoteInputChannel channel, int sequenceNumber, int backlog, String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        Buffer buffer = TestBuffers.dataBuffer(0, 0, senderBuffers);
        buffer.getMemorySegment().put(0, bytes, 0, bytes.length);
        buffer.setSize(bytes.length);
        return new BufferResponse(buffer, channel.inputChannelId(), sequenceNumber, backlog, DataType.DATA_BUFFER,
                bytes.length);
    }

    private static ByteBuffer text(String value) {
        return ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(TaskEventRequest event) {
        return StandardCharsets.UTF_8.decode(event.event()).toString();
    }
}
