package io.sluice.tests.chaos;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultInjectingHandlerTest {

    /** The handler sits on a connection of env-0 to env-1. */
    private static final int CLIENT = 0;
    private static final int SERVER = 1;

    private final Set<Fault> fired = ConcurrentHashMap.newKeySet();

    @Test
    void close_passesFramesUpToTheNth_thenClosesTheConnection() {
        Fault close = new Fault(FaultKind.CONNECTION_CLOSE, CLIENT, SERVER, 2, 0, 0, false);
        EmbeddedChannel channel = channelWith(close);

        for (int frame = 0; frame < 3; frame++) {
            channel.writeInbound(frame);
        }

        assertEquals(List.of(0, 1, 2), readAll(channel));
        assertFalse(channel.isOpen());
        assertEquals(Set.of(close), fired);
    }

    @Test
    void faultsOfOtherConnections_leaveTheStreamAlone() {
        EmbeddedChannel channel = channelWith(new Fault(FaultKind.CONNECTION_CLOSE, SERVER, CLIENT, 0, 0, 0, false),
                new Fault(FaultKind.CONNECTION_RESET, CLIENT, 3, 0, 0, 0, false));

        channel.writeInbound(0, 1);

        assertEquals(List.of(0, 1), readAll(channel));
        assertTrue(channel.isOpen());
        assertTrue(fired.isEmpty());
        channel.finishAndReleaseAll();
    }

    @Test
    void delay_holdsTheWindowAndEverythingBehindIt_thenDeliversInOrder() {
        Fault delay = new Fault(FaultKind.FRAME_DELAY, CLIENT, SERVER, 1, 2, 5, false);
        EmbeddedChannel channel = channelWith(delay);

        channel.writeInbound(0, 1, 2, 3);

        assertEquals(List.of(0), readAll(channel), "frames 1..2 are held, and 3 waits behind them");
        channel.advanceTimeBy(5, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(List.of(1, 2, 3), readAll(channel));
        assertEquals(Set.of(delay), fired);
        channel.finishAndReleaseAll();
    }

    @Test
    void connectionEnd_deliversHeldFramesBeforeIt() {
        EmbeddedChannel channel = channelWith(new Fault(FaultKind.FRAME_DELAY, CLIENT, SERVER, 0, 5, 1000, false));

        channel.writeInbound(0, 1);
        channel.close();

        assertEquals(List.of(0, 1), readAll(channel));
    }

    @Test
    void removal_releasesHeldBuffers() {
        EmbeddedChannel channel = channelWith(new Fault(FaultKind.FRAME_DELAY, CLIENT, SERVER, 0, 5, 1000, false));
        ByteBuf held = Unpooled.directBuffer(8).writeLong(42);

        channel.writeInbound(held);
        channel.pipeline().removeFirst();

        assertEquals(0, held.refCnt());
        assertNull(channel.readInbound());
    }

    private EmbeddedChannel channelWith(Fault... faults) {
        return new EmbeddedChannel(new FaultInjectingHandler(List.of(faults), CLIENT, address -> SERVER, fired::add));
    }

    private static List<Object> readAll(EmbeddedChannel channel) {
        List<Object> frames = new ArrayList<>();
        for (Object frame = channel.readInbound(); frame != null; frame = channel.readInbound()) {
            frames.add(frame);
        }
        return frames;
    }
}
