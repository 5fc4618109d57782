package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gate's queue of channels against announcements that race with the consumer's takes (docs/contract.md section
 * 5, priority events): the channels with priority events waiting lead the queue, so that while the gate's priority
 * future is done the next poll returns a priority event. Driven with {@link ScriptedInputChannel}s, whose hook puts
 * another thread's announcement exactly between a take and the gate's count of it.
 */
@Timeout(30)
class GatePriorityQueueOrderTest {

    // docs/contract.md section 5: channels with priority events lead the queue, also when a channel's announcement
    // lands while the consumer is taking that very event and another channel's priority event waits
    @Test
    void announcementLandingWhileTheConsumerTakesThatEvent_leavesTheChannelWithAnotherPriorityEventFirst()
            throws Exception {
        SingleInputGate gate = new SingleInputGate("test-consumer", 2, closed -> { }, Runnable::run);
        ResultPartitionId partition = ResultPartitionId.random();
        ScriptedInputChannel racing = new ScriptedInputChannel(gate, 0, partition, 0);
        ScriptedInputChannel other = new ScriptedInputChannel(gate, 1, partition, 1);
        gate.setChannel(racing);
        gate.setChannel(other);
        gate.setup();
        racing.addPriorityEvent(userEvent("barrier 0"));
        racing.add(data(0));
        // While the consumer takes the racing channel's event: the other channel's priority event arrives and is
        // announced, then the racing channel's own announcement lands (it queues that channel first again).
        racing.afterNextTake(() -> {
            other.addPriorityEvent(userEvent("barrier 1"));
            other.announcePriorityEvent();
            racing.announcePriorityEvent();
        });

        BufferOrEvent first = gate.pollNext().orElseThrow();
        assertTrue(first.isPriority() && first.channelIndex() == 0, "the racing channel's event: " + first);
        first.recycle();

        assertTrue(gate.priorityEventWakeUpFuture().isDone(), "the other channel's priority event waits");
        BufferOrEvent second = gate.pollNext().orElseThrow();
        try {
            assertTrue(second.isPriority() && second.channelIndex() == 1,
                    "while the priority future is done the next poll returns a priority event: " + second);
        } finally {
            second.recycle();
        }
        assertFalse(gate.priorityEventWakeUpFuture().isDone(), "every priority event was taken");
        BufferOrEvent third = gate.pollNext().orElseThrow();
        assertTrue(!third.isEvent() && third.channelIndex() == 0, "then the racing channel's data: " + third);
        third.recycle();
        gate.close();
    }

    private static Buffer data(int value) {
        return new Buffer(MemorySegment.wrap(new byte[] {(byte) value}), segment -> { }, true, 1);
    }

    private static Buffer userEvent(String payload) {
        return EventSerializer.userEvent(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
    }
}
