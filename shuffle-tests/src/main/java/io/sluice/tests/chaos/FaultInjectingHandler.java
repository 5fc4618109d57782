package io.sluice.tests.chaos;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;

import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Injects the connection faults of a chaos scenario into one client connection, counting the decoded frames it
 * receives (it sits right after the client's decoder), so the faults hit the same frame in every run of a seed:
 * {@link FaultKind#CONNECTION_CLOSE} closes the connection after frame N, {@link FaultKind#CONNECTION_RESET} does so
 * with SO_LINGER 0 (the server sees a reset), {@link FaultKind#FRAME_DELAY} holds frames N.. N+count-1 back and
 * passes them on, in order, after a delay.
 *
 * <p>Owned by the channel's event loop. Frames it holds are passed on before the connection's end is, and released
 * if the handler is removed, so it never leaks a buffer.
 */
final class FaultInjectingHandler extends ChannelInboundHandlerAdapter {

    private final List<Fault> faults;
    private final ToIntFunction<SocketAddress> serverEnvironment;
    private final int clientEnvironment;
    private final Consumer<Fault> onFired;

    /** Faults of this connection, chosen once it is active and its server known. */
    private List<Fault> active = List.of();
    private long frames;
    /** Frames held back, oldest first; once one is held, every later one queues behind it (order is kept). */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private boolean drainScheduled;

    /**
     * @param faults            every fault of the scenario; the handler picks those of its connection
     * @param clientEnvironment the environment whose client this connection belongs to
     * @param serverEnvironment the environment behind a remote address, or -1
     * @param onFired           told when a fault hits
     */
    FaultInjectingHandler(List<Fault> faults, int clientEnvironment, ToIntFunction<SocketAddress> serverEnvironment,
                          Consumer<Fault> onFired) {
        this.faults = faults;
        this.clientEnvironment = clientEnvironment;
        this.serverEnvironment = serverEnvironment;
        this.onFired = onFired;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        int server = serverEnvironment.applyAsInt(ctx.channel().remoteAddress());
        List<Fault> mine = new ArrayList<>();
        for (Fault fault : faults) {
            boolean connectionFault = fault.kind() == FaultKind.CONNECTION_CLOSE
                    || fault.kind() == FaultKind.CONNECTION_RESET || fault.kind() == FaultKind.FRAME_DELAY;
            if (connectionFault && fault.actor() == clientEnvironment && fault.target() == server) {
                mine.add(fault);
            }
        }
        active = mine;
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long frame = frames++;
        boolean hold = !held.isEmpty();
        Fault close = null;
        for (Fault fault : active) {
            if (fault.kind() == FaultKind.FRAME_DELAY && frame >= fault.at() && frame < fault.at() + fault.amount()) {
                if (frame == fault.at()) {
                    onFired.accept(fault);
                }
                hold = true;
                if (!drainScheduled) {
                    drainScheduled = true;
                    ctx.executor().schedule(() -> drain(ctx), fault.millis(), TimeUnit.MILLISECONDS);
                }
            } else if (fault.at() == frame && fault.kind() != FaultKind.FRAME_DELAY) {
                close = fault;
            }
        }
        if (hold) {
            held.add(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
        if (close != null) {
            onFired.accept(close);
            Channel channel = ctx.channel();
            if (close.kind() == FaultKind.CONNECTION_RESET && channel instanceof SocketChannel socket) {
                socket.config().setSoLinger(0);
            }
            channel.close();
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        drainScheduled = false;
        if (ctx.isRemoved()) {
            return;
        }
        boolean any = !held.isEmpty();
        while (!held.isEmpty()) {
            ctx.fireChannelRead(held.poll());
        }
        if (any) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        // What arrived before the end is delivered before it, as without this handler.
        drain(ctx);
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        while (!held.isEmpty()) {
            ReferenceCountUtil.release(held.poll());
        }
    }
}
