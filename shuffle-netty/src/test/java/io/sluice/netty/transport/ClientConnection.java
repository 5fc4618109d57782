package io.sluice.netty.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.ConnectionId;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client end of one connection in an {@link EmbeddedChannel}, with the pipeline the client bootstrap builds
 * (decoder, encoder, {@link CreditBasedClientHandler}) and a {@link PartitionRequestClient} over it; the server's
 * messages are fed in as bytes, and what the client writes is decoded by a server decoder.
 *
 * <p>Channels are registered with {@link #request}, which sends their partition request through the client as the
 * channel would. They got no client from a factory, so they do not announce credit by themselves: tests make the
 * call the channel makes, {@link #notifyCreditAvailable}.
 *
 * <p>{@link #close()} closes the connection and asserts that every ByteBuf was released. Test thread only.
 */
final class ClientConnection implements AutoCloseable {

    /** The connection the handler serves: producer {@link RemoteChannels#PRODUCER}. */
    static final ConnectionId CONNECTION = RemoteChannels.NOWHERE;

    private static final int TEST_WRITABILITY_BIT = 1;

    private final CodecChannels codec = new CodecChannels();
    private final CreditBasedClientHandler handler = new CreditBasedClientHandler(CONNECTION);
    private final EmbeddedChannel channel;
    private final EmbeddedChannel serverDecoder;
    private final PartitionRequestClient client;
    /** Every ByteBuf handed to the client's decoder, to check that it released them. */
    private final List<ByteBuf> fed = new ArrayList<>();

    /**
     * @param outboundBeforeEncoder handlers that see the client's messages before they are encoded (e.g. to fail
     *                              a write)
     */
    ClientConnection(ChannelHandler... outboundBeforeEncoder) {
        List<ChannelHandler> handlers = new ArrayList<>(List.of(new EventLoopTasks(),
                new ClientMessageDecoder(handler, CodecChannels.MAX_FRAME_LENGTH), new NettyMessageEncoder()));
        handlers.addAll(List.of(outboundBeforeEncoder));
        handlers.add(handler);
        channel = codec.channel(handlers.toArray(ChannelHandler[]::new));
        serverDecoder = codec.server(1 << 20);
        PartitionRequestClientFactory neverConnects = new PartitionRequestClientFactory(new Bootstrap(), id -> {
            throw new AssertionError("the embedded client never connects");
        });
        client = new PartitionRequestClient(channel, handler, CONNECTION, neverConnects);
    }

    CreditBasedClientHandler handler() {
        return handler;
    }

    PartitionRequestClient client() {
        return client;
    }

    EmbeddedChannel channel() {
        return channel;
    }

    /** The channel takes a reference of the client and sends its partition request with {@code credit}. */
    void request(RemoteInputChannel inputChannel, int credit) {
        assertTrue(client.acquire(), "the client is open");
        client.requestSubpartition(inputChannel.partitionId(), 0, inputChannel, credit);
        EventLoopTasks.run(channel);
    }

    /** What the channel does when it has new credit (and a client). */
    void notifyCreditAvailable(RemoteInputChannel inputChannel) {
        client.notifyCreditAvailable(inputChannel);
    }

    /** The server's messages arrive, as bytes in one read. */
    void receive(NettyMessage... fromServer) {
        byte[] bytes = codec.encode(fromServer);
        receiveRaw(bytes, bytes.length);
    }

    /** The server's bytes arrive in reads of {@code chunkSize}. */
    void receiveRaw(byte[] bytes, int chunkSize) {
        fed.addAll(EventLoopTasks.deliverBytes(channel, bytes, chunkSize));
    }

    /** The wire bytes of {@code messages}, for tests that cut them up themselves. */
    byte[] encode(NettyMessage... messages) {
        return codec.encode(messages);
    }

    /** Runs the event-loop tasks waiting now (credit announcements). */
    void runPendingTasks() {
        EventLoopTasks.run(channel);
    }

    /** Blocks ({@code false}) or unblocks the connection's writability, as a full or drained socket buffer would. */
    void setWritable(boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(TEST_WRITABILITY_BIT, writable);
        EventLoopTasks.run(channel);
        assertEquals(writable, channel.isWritable());
    }

    /** Everything the client wrote since the last call, decoded, in order. */
    List<NettyMessage> written() {
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            serverDecoder.writeInbound((ByteBuf) out);
        }
        List<NettyMessage> messages = new ArrayList<>();
        for (Object message : CodecChannels.readInbound(serverDecoder)) {
            messages.add((NettyMessage) message);
        }
        return messages;
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        serverDecoder.finishAndReleaseAll();
        codec.assertNettyMemoryReleased();
        for (ByteBuf chunk : fed) {
            assertEquals(0, chunk.refCnt(), "a ByteBuf fed to the client was not released");
        }
    }
}
