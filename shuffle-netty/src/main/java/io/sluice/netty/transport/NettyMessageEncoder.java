package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.handler.codec.EncoderException;
import io.sluice.buffers.Buffer;

import java.nio.ByteBuffer;

/**
 * Turns {@link NettyMessage}s into {@link Frame}s; any other object is passed on unchanged. Used on both ends of a
 * connection. One instance per channel (it keeps the channel's void promise for response headers); every call runs
 * on that channel's event loop.
 *
 * <p>Small messages become one ByteBuf from {@code ctx.alloc()} holding the whole frame. A {@link BufferResponse}
 * becomes two writes: its frame header and fixed fields in a small ByteBuf, then its data as a ByteBuf that wraps the
 * Sluice buffer's readable bytes without copying ({@link OffHeapPayloadByteBuf} / {@link HeapPayloadByteBuf}). That
 * second ByteBuf owns the message's buffer reference: Netty releases it once written or on failure, and the release
 * recycles the Sluice buffer exactly once. The caller's promise completes when the data has been written.
 *
 * <p>Cost per data buffer sent (a pipelined subpartition over plain TCP, no compression), counted from the code;
 * shallow sizes for 64-bit HotSpot with compressed references. Four new objects, about 200 bytes: the read-only
 * {@code Buffer} slice the subpartition hands out (40), its {@code BufferAndBacklog} (32), the {@link BufferResponse}
 * (48) and the {@link OffHeapPayloadByteBuf} around the segment's shared view (about 64, with Netty's {@code RefCnt}
 * 16). No {@code ByteBuffer} view per buffer: the payload ByteBuf wraps the view made once with the segment, and
 * epoll writes from its memory address; the NIO transport still makes one internal NIO view per write (about 64).
 * The header's promise is this encoder's one void promise. Not new per buffer: the 39-byte header (10 frame + 29
 * response bytes) comes from the channel's pooled allocator, and Netty recycles its ByteBuf object and the two
 * {@code ChannelOutboundBuffer} entries. The payload itself is never copied. The JMH benchmark
 * {@code SteadyStateAllocationBenchmark.buffers}, run with {@code -prof gc}, measures the whole path's allocation.
 */
public final class NettyMessageEncoder extends ChannelOutboundHandlerAdapter {

    /**
     * The promise of every response header written: it never fires (see {@link #writeBufferResponse}), so one per
     * channel serves every write. Set in {@link #handlerAdded}.
     */
    private ChannelPromise headerPromise;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        headerPromise = new VoidChannelPromise(ctx.channel(), false);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof BufferResponse response) {
            writeBufferResponse(ctx, response, promise);
        } else if (msg instanceof StoredBuffersResponse run) {
            writeStoredBuffers(ctx, run, promise);
        } else if (msg instanceof NettyMessage message) {
            ctx.write(encodeFrame(ctx.alloc(), message, Frame.HEADER_LENGTH + message.bodyLength()), promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    /**
     * Writes the response's header, then its data. Ownership of the response's buffer: passed to the data ByteBuf,
     * or recycled here when there is nothing to send or encoding fails.
     */
    private void writeBufferResponse(ChannelHandlerContext ctx, BufferResponse response, ChannelPromise promise) {
        if (response.wirePayload() != null) {
            writeWirePayload(ctx, response, promise);
            return;
        }
        Buffer buffer = response.buffer();
        if (buffer == null && response.bufferSize() > 0) {
            throw new EncoderException("cannot send " + response + ": it announces " + response.bufferSize()
                    + " bytes but carries no buffer");
        }
        if (buffer != null && buffer.isRecycled()) {
            throw new EncoderException("cannot send " + response + ": its buffer was already recycled (" + buffer
                    + ")");
        }
        ByteBuf header = encodeResponseHeader(ctx, response);
        if (response.bufferSize() == 0) {
            response.releaseBuffer();
            ctx.write(header, promise);
            return;
        }
        ByteBuf data;
        try {
            data = wrapReadableBytes(ctx.alloc(), buffer);
        } catch (RuntimeException e) {
            header.release();
            response.releaseBuffer();
            throw new EncoderException("cannot wrap the data of " + response + " (" + buffer + ")", e);
        }
        // The header's outcome is not reported on its own: if it fails, the channel is broken and the data write
        // queued right behind it fails too, which completes the caller's promise. A non-firing void promise keeps
        // a closed channel from raising a duplicate exceptionCaught for every pending write (the channel's shared
        // voidPromise() fires exceptionCaught, so it cannot be used); it has no state, so this encoder keeps one.
        ctx.write(header, headerPromise);
        ctx.write(data, promise);
    }

    /**
     * Writes a response whose payload is an LZ4 block: its header, then the payload, which Netty
     * releases once written.
     */
    private void writeWirePayload(ChannelHandlerContext ctx, BufferResponse response, ChannelPromise promise) {
        ByteBuf header = encodeResponseHeader(ctx, response);
        ctx.write(header, headerPromise);
        ctx.write(response.wirePayload(), promise);
    }

    /**
     * Writes a run of stored buffers: its header, then its file region, which Netty releases once written. On an
     * encoding failure the region is released here.
     */
    private void writeStoredBuffers(ChannelHandlerContext ctx, StoredBuffersResponse run, ChannelPromise promise) {
        ByteBuf header;
        try {
            header = encodeFrame(ctx.alloc(), run, (int) StoredBuffersResponse.frameLength(run.storedBytes()));
        } catch (RuntimeException e) {
            run.release();
            throw e;
        }
        ctx.write(header, headerPromise);
        ctx.write(run.region(), promise);
    }

    /** The frame header and fixed fields of a response; on failure the response's payload is released. */
    private static ByteBuf encodeResponseHeader(ChannelHandlerContext ctx, BufferResponse response) {
        try {
            return encodeFrame(ctx.alloc(), response, BufferResponse.frameLength(response.bufferSize()));
        } catch (RuntimeException e) {
            response.releaseBuffer();
            throw e;
        }
    }

    /**
     * A ByteBuf holding the frame header with {@code frameLength} and the message's body; for a BufferResponse the
     * data that follows is not included (frameLength still counts it).
     */
    private static ByteBuf encodeFrame(ByteBufAllocator alloc, NettyMessage message, int frameLength) {
        ByteBuf frame = alloc.buffer(Frame.HEADER_LENGTH + message.bodyLength());
        try {
            Frame.writeHeader(frame, frameLength, message.id());
            message.writeBody(frame);
            return frame;
        } catch (RuntimeException e) {
            frame.release();
            throw new EncoderException("cannot encode " + message, e);
        }
    }

    /**
     * A ByteBuf sharing the memory of {@code buffer}'s readable bytes and owning the caller's reference of it. The
     * memory is reached through the segment itself, not {@link Buffer#getNioBufferReadable()}: a read-only slice's
     * view is a read-only ByteBuffer, which Netty cannot wrap without copying.
     */
    private static ByteBuf wrapReadableBytes(ByteBufAllocator alloc, Buffer buffer) {
        if (buffer.getMemorySegment().isOffHeap()) {
            return OffHeapPayloadByteBuf.wrapReadableBytes(alloc, buffer);
        }
        ByteBuffer view = buffer.getMemorySegment().wrap(
                buffer.getMemorySegmentOffset() + buffer.getReaderIndex(), buffer.readableBytes());
        return new HeapPayloadByteBuf(alloc, view.array(), view.arrayOffset(), view.remaining(), buffer);
    }
}
