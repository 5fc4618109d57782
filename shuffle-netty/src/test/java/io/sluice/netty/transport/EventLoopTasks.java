package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs an {@link EmbeddedChannel}'s tasks one after another, as a real event loop does. Install it first in the
 * pipeline and go through it instead of calling {@code writeInbound} or {@code runPendingTasks} directly.
 *
 * <p>Why: an EmbeddedChannel runs its pending tasks at the end of every write that is not nested in one of its own
 * calls, and a task started by {@link EmbeddedChannel#runPendingTasks()} is not. So a task that writes twice (a
 * BufferResponse is a header write and a data write) would run the next pending task between its two writes, which
 * no event loop does, and the bytes of two responses would interleave. Going through this handler nests everything
 * in {@link EmbeddedChannel#writeOneInbound}, which suppresses that.
 *
 * <p>Test thread only (the embedded event loop's thread).
 */
final class EventLoopTasks extends ChannelInboundHandlerAdapter {

    /** Messages to hand to the pipeline, then the tasks they caused. */
    private record Deliver(List<Object> messages) {
    }

    /**
     * Fires {@code messages} into the pipeline behind this handler, in order, and the read's channelReadComplete, then
     * runs the pending tasks and those
     * they add, and the scheduled tasks that are due.
     */
    static void deliver(EmbeddedChannel channel, Object... messages) {
        channel.writeOneInbound(new Deliver(List.of(messages)));
        channel.checkException();
    }

    /**
     * Fires {@code bytes} into the pipeline behind this handler as ByteBufs of at most {@code chunkSize} bytes (as a
     * socket's reads would), then runs the tasks. Returns the ByteBufs, so that the caller can check that they were
     * released; they wrap {@code bytes} (Unpooled: not leak-tracked, so small chunks cost nothing at PARANOID).
     */
    static List<ByteBuf> deliverBytes(EmbeddedChannel channel, byte[] bytes, int chunkSize) {
        List<ByteBuf> chunks = new ArrayList<>();
        for (int offset = 0; offset < bytes.length; offset += chunkSize) {
            chunks.add(Unpooled.wrappedBuffer(bytes, offset, Math.min(chunkSize, bytes.length - offset)));
        }
        deliver(channel, chunks.toArray());
        return chunks;
    }

    /** Runs the pending tasks, those they add, and the scheduled tasks that are due. */
    static void run(EmbeddedChannel channel) {
        if (channel.isOpen()) {
            deliver(channel);
        } else {
            // Nothing can be delivered to a closed channel; its remaining tasks write nothing.
            runAll(channel);
        }
    }

    private static void runAll(EmbeddedChannel channel) {
        while (channel.hasPendingTasks()) {
            channel.runPendingTasks();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Deliver deliver)) {
            ctx.fireChannelRead(msg);
            return;
        }
        for (Object message : deliver.messages()) {
            ctx.fireChannelRead(message);
        }
        // A socket read ends with channelReadComplete: handlers that batch per read (the client's credit) flush there.
        ctx.fireChannelReadComplete();
        runAll((EmbeddedChannel) ctx.channel());
    }
}
