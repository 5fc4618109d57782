package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Test support: embedded channels carrying the codec, all allocating from one counting ByteBuf allocator, plus
 * helpers to turn messages into wire bytes and back. {@link #assertNettyMemoryReleased()} checks that the decoders
 * released every ByteBuf fed to them and everything they allocated themselves.
 */
final class CodecChannels {

    /** Room for a BufferResponse of one full segment. */
    static final int MAX_FRAME_LENGTH = BufferResponse.frameLength(TestBuffers.SEGMENT_SIZE);

    private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);

    /** Every ByteBuf written into a channel by {@link #feed}. */
    private final List<ByteBuf> fed = new ArrayList<>();

    /** A channel with just the encoder. */
    EmbeddedChannel sender() {
        return channel(new NettyMessageEncoder());
    }

    /** A channel with a {@link ServerMessageDecoder} of {@code maxFrameLength}. */
    EmbeddedChannel server(int maxFrameLength) {
        return channel(new ServerMessageDecoder(maxFrameLength));
    }

    /** A channel with a {@link ClientMessageDecoder} of {@link #MAX_FRAME_LENGTH} taking buffers from {@code buffers}. */
    EmbeddedChannel client(NetworkBufferAllocator buffers) {
        return channel(new ClientMessageDecoder(buffers, MAX_FRAME_LENGTH));
    }

    /** A channel whose pipeline holds {@code handlers} and allocates from the counting allocator. */
    EmbeddedChannel channel(ChannelHandler... handlers) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast(handlers);
        return channel;
    }

    /**
     * Encodes {@code messages} in order and returns the bytes the encoder wrote (a FileRegion's bytes read from its
     * file). Every ByteBuf and region written is released, so the Sluice buffers of BufferResponses are recycled when
     * this returns.
     */
    byte[] encode(NettyMessage... messages) {
        EmbeddedChannel sender = sender();
        for (NettyMessage message : messages) {
            sender.writeOutbound(message);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Object written = sender.readOutbound(); written != null; written = sender.readOutbound()) {
            if (written instanceof FileRegion region) {
                transfer(region, bytes);
                continue;
            }
            ByteBuf buf = (ByteBuf) written;
            byte[] copy = new byte[buf.readableBytes()];
            buf.readBytes(copy);
            buf.release();
            bytes.writeBytes(copy);
        }
        sender.finishAndReleaseAll();
        return bytes.toByteArray();
    }

    /** Appends {@code region}'s bytes to {@code bytes} as a socket would receive them, and releases the region. */
    private static void transfer(FileRegion region, ByteArrayOutputStream bytes) {
        try {
            WritableByteChannel target = Channels.newChannel(bytes);
            while (region.transferred() < region.count()) {
                region.transferTo(target, region.transferred());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            region.release();
        }
    }

    /**
     * Writes {@code bytes} into {@code channel}'s inbound side in ByteBufs of at most {@code chunkSize} bytes. The
     * chunks wrap {@code bytes} (Unpooled, so not leak-tracked: tracking one-byte chunks at the PARANOID level costs
     * seconds) and are remembered, so that {@link #assertNettyMemoryReleased()} can check that each was released.
     */
    void feed(EmbeddedChannel channel, byte[] bytes, int chunkSize) {
        for (int offset = 0; offset < bytes.length; offset += chunkSize) {
            ByteBuf chunk = Unpooled.wrappedBuffer(bytes, offset, Math.min(chunkSize, bytes.length - offset));
            fed.add(chunk);
            channel.writeInbound(chunk);
        }
    }

    /** Feeds {@code bytes} in one piece and returns everything decoded, in order. */
    List<Object> decode(EmbeddedChannel channel, byte[] bytes) {
        feed(channel, bytes, Math.max(1, bytes.length));
        return readInbound(channel);
    }

    /** Everything the channel has decoded so far, in order. */
    static List<Object> readInbound(EmbeddedChannel channel) {
        List<Object> messages = new ArrayList<>();
        for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
            messages.add(message);
        }
        return messages;
    }

    /** Bytes of Netty memory (heap and direct) the channels allocated and did not release yet. */
    long nettyBytesInUse() {
        return allocator.metric().usedHeapMemory() + allocator.metric().usedDirectMemory();
    }

    /** Asserts that every ByteBuf fed in and every ByteBuf the channels allocated has been released. */
    void assertNettyMemoryReleased() {
        assertEquals(0, nettyBytesInUse(), "bytes allocated by the channels and not released");
        int unreleased = 0;
        for (ByteBuf chunk : fed) {
            unreleased += chunk.refCnt() > 0 ? 1 : 0;
        }
        assertEquals(0, unreleased, "of " + fed.size() + " ByteBufs fed in, not released");
    }
}
