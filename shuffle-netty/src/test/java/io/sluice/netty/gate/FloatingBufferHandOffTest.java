package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.buffers.Buffer;
import io.sluice.buffers.LocalBufferPool;

import io.sluice.testing.BackgroundTask;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A floating buffer that no waiting channel wants any more passes along the gate's waiting channels in a loop, not
 * by recursion: a gate of thousands of remote channels whose backlogs dropped after they registered for a floating
 * buffer must not overflow the stack of whichever thread recycles (docs/behaviours.md RIC-9, RIC-10, LBP-5).
 *
 * <p>The recycling runs on a thread with a small stack, so that a hand-off that recursed once per waiting channel
 * fails for certain instead of depending on the default stack size.
 */
@Timeout(60)
class FloatingBufferHandOffTest {

    private static final int CHANNELS = 4_000;
    private static final int EXCLUSIVE = 2;
    private static final int SEGMENT_SIZE = 64;
    /** Far below what thousands of nested hand-offs need, far above what a loop needs. */
    private static final long SMALL_STACK_BYTES = 256 * 1024;

    private final RemoteChannels channels = new RemoteChannels(CHANNELS * EXCLUSIVE + 1, SEGMENT_SIZE);

    @AfterEach
    void everySegmentIsBack() {
        channels.close();
    }

    // RIC-9, RIC-10: the stack of the issue, RecordReader -> RemoteInputChannel.recycle -> LocalBufferPool.recycle
    // -> a waiting channel declines -> the next waiting channel -> ...
    @Test
    void recycledExclusiveBuffer_pushesASurplusFloatingBufferPastThousandsOfChannelsThatNoLongerWantIt()
            throws Exception {
        SingleInputGate gate = channels.gate(CHANNELS, EXCLUSIVE, 1);
        LocalBufferPool floatingPool = channels.floatingPool(gate);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        Buffer decoded = first.requestBuffer(); // an exclusive buffer, taken as the decoder would
        assertNotNull(decoded);
        first.onSenderBacklog(1); // borrows the pool's only floating buffer and still waits for one more
        assertTrue(first.isWaitingForFloatingBuffers());
        for (int i = 1; i < CHANNELS; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            channel.onSenderBacklog(1);
            assertTrue(channel.isWaitingForFloatingBuffers(), "channel " + i + " waits for the empty pool");
        }
        for (int i = 0; i < CHANNELS; i++) {
            // The data arrived in exclusive buffers after all: nobody needs a floating buffer any more.
            RemoteChannels.channel(gate, i).onSenderBacklog(0);
        }

        onSmallStack(decoded::recycleBuffer);

        assertEquals(EXCLUSIVE, first.availableBuffers(), "the first channel keeps its exclusive buffers only");
        assertEquals(1, floatingPool.getNumberOfAvailableMemorySegments(),
                "the floating buffer nobody wants is idle in the gate's pool");
        for (int i = 0; i < CHANNELS; i++) {
            assertFalse(RemoteChannels.channel(gate, i).isWaitingForFloatingBuffers(), "channel " + i);
        }
        Buffer again = floatingPool.requestBuffer();
        assertNotNull(again, "the pool hands the buffer out again");
        again.recycleBuffer();
    }

    // RIC-9: the same chain started by a floating buffer the consumer recycles straight into the pool
    @Test
    void recycledFloatingBuffer_passesThousandsOfChannelsThatNoLongerWantIt() throws Exception {
        SingleInputGate gate = channels.gate(CHANNELS, EXCLUSIVE, 1);
        LocalBufferPool floatingPool = channels.floatingPool(gate);
        Buffer held = floatingPool.requestBuffer();
        for (int i = 0; i < CHANNELS; i++) {
            RemoteChannels.channel(gate, i).onSenderBacklog(1);
        }
        for (int i = 0; i < CHANNELS; i++) {
            RemoteChannels.channel(gate, i).onSenderBacklog(0);
        }

        onSmallStack(held::recycleBuffer);

        assertEquals(1, floatingPool.getNumberOfAvailableMemorySegments());
        for (int i = 0; i < CHANNELS; i++) {
            assertFalse(RemoteChannels.channel(gate, i).isWaitingForFloatingBuffers(), "channel " + i);
        }
    }

    /** Runs {@code action} on a new thread with a small stack; rethrows what it threw (a StackOverflowError). */
    private static void onSmallStack(BackgroundTask.Body action) throws Exception {
        BackgroundTask.startWithStack("small-stack-recycler", SMALL_STACK_BYTES, action).await();
    }
}
