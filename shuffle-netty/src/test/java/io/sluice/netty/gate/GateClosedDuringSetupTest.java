package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIG-1, SIG-10: a gate closed while its {@code setup()} waits for the exclusive segments its remote channels
 * need. The close does not wait for the reservation (whose own timeout is 30 s), the waiting setup ends at once with
 * a {@link ShuffleException} saying the gate was closed, and every segment comes back: none is handed to a released
 * channel, and the gate's floating pool is destroyed even when it is created after the close.
 */
@Timeout(60)
class GateClosedDuringSetupTest {

    private static final int SEGMENTS = 32;
    /** Far below the reservation's 30 s timeout: a close or setup that waits for it trips this guard. */
    private static final long NO_HANG_SECONDS = 10;

    private final RemoteChannels channels = new RemoteChannels(SEGMENTS, 64);
    private final NetworkBufferPool globalPool = channels.globalPool();
    private final List<Buffer> held = new ArrayList<>();
    private LocalBufferPool busyPool;

    @AfterEach
    void closeAndCheckForLeaks() {
        releaseHeldBuffers();
        channels.close();
    }

    /** Another pool takes 30 of the 32 segments and keeps them in use: the gate's 24 must wait for them. */
    private void occupyMemory() throws Exception {
        busyPool = globalPool.createBufferPool(1, SEGMENTS);
        for (int i = 0; i < SEGMENTS - 2; i++) {
            held.add(busyPool.requestBufferBlocking());
        }
    }

    private void releaseHeldBuffers() {
        for (Buffer buffer : held) {
            buffer.recycleBuffer();
        }
        held.clear();
        if (busyPool != null) {
            busyPool.lazyDestroy();
            busyPool = null;
        }
    }

    @Test
    void closeWhileSetupWaitsForMemory_endsSetupAtOnceWithShuffleException_andEverySegmentComesBack()
            throws Exception {
        occupyMemory();
        SingleInputGate gate = channels.unreservedGate(8, 3, 4);
        BackgroundTask<Void> setup = BackgroundTask.start("gate-setup", gate::setup);
        Await.blocked(setup.thread());

        BackgroundTask<Void> close = BackgroundTask.start("gate-close", gate::close);
        close.result().get(NO_HANG_SECONDS, TimeUnit.SECONDS);
        Throwable failure = awaitFailure(setup);

        ShuffleException closed = assertInstanceOf(ShuffleException.class, failure);
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        releaseHeldBuffers();
        Await.until(() -> globalPool.getNumberOfAvailableMemorySegments() == SEGMENTS, "every segment back");
        assertEquals(0, globalPool.getNumberOfRegisteredBufferPools(), "the gate's floating pool was destroyed");
        for (int i = 0; i < gate.numberOfInputChannels(); i++) {
            assertEquals(0, RemoteChannels.availableBuffers(RemoteChannels.channel(gate, i)),
                    "released channel " + i + " holds no buffer");
        }
    }

    private static Throwable awaitFailure(BackgroundTask<?> task) throws Exception {
        return task.awaitFailure(Duration.ofSeconds(NO_HANG_SECONDS));
    }

    @Test
    void closeBeforeTheReservationStarts_setupFailsAtOnce_andReservesNothing() throws Exception {
        SingleInputGate gate = channels.unreservedGate(2, 2, 2);
        gate.close();

        ShuffleException closed = org.junit.jupiter.api.Assertions.assertThrows(ShuffleException.class, gate::setup);

        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments());
        assertEquals(0, globalPool.getNumberOfRegisteredBufferPools());
    }
}
