package io.sluice.netty.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.api.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The heartbeat handler on a channel with a frozen clock: heartbeats on quiet, failure on silence. */
class HeartbeatHandlerTest {

    private static final Duration INTERVAL = Duration.ofMillis(200);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final List<Throwable> errors = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel();

    HeartbeatHandlerTest() {
        channel.freezeTime();
        channel.pipeline().addLast(new HeartbeatHandler(INTERVAL, TIMEOUT, "producer p1"),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        errors.add(cause);
                    }
                });
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void quietConnection_sendsAHeartbeatEveryInterval_andNothingWhileOtherMessagesGoOut() {
        advance(INTERVAL.toMillis() + 10);
        assertEquals(Heartbeat.INSTANCE, channel.readOutbound(), "a heartbeat after one quiet interval");
        assertNull(channel.readOutbound(), "one heartbeat per interval");

        for (int i = 0; i < 10; i++) {
            channel.writeOutbound(new CloseRequest());
            channel.writeInbound(Heartbeat.INSTANCE);
            advance(INTERVAL.toMillis() / 2);
        }
        List<Object> written = new ArrayList<>();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            written.add(message);
        }
        assertTrue(written.stream().noneMatch(Heartbeat.class::isInstance),
                "no heartbeat while other messages are written: " + written);
    }

    @Test
    void heartbeatsReceived_keepTheConnection_andAreNotPassedOn() {
        for (int i = 0; i < 30; i++) {
            channel.writeInbound(Heartbeat.INSTANCE);
            advance(INTERVAL.toMillis());
        }
        assertEquals(List.of(), errors, "6 s of heartbeats every 200 ms with a 2 s timeout");
        assertNull(channel.readInbound(), "heartbeats stop at the handler");
    }

    @Test
    void noFrameForTheTimeout_failsTheConnectionWithTransportExceptionNamingThePeerAndTheOption() {
        channel.writeInbound(new CloseRequest());
        channel.readInbound();
        advance(TIMEOUT.toMillis() - INTERVAL.toMillis());
        assertEquals(List.of(), errors, "not before the timeout");

        advance(2 * INTERVAL.toMillis());

        assertEquals(1, errors.size(), "one failure: " + errors);
        TransportException failure = assertInstanceOf(TransportException.class, errors.get(0));
        assertTrue(failure.getMessage().contains("producer p1")
                && failure.getMessage().contains("shuffle.netty.heartbeat-timeout"), failure.getMessage());
        advance(TIMEOUT.toMillis());
        assertEquals(1, errors.size(), "failed once");
    }

    private void advance(long millis) {
        // In small steps, so that every scheduled check runs at its time.
        for (long done = 0; done < millis; done += 10) {
            channel.advanceTimeBy(Math.min(10, millis - done), TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
        }
    }
}
