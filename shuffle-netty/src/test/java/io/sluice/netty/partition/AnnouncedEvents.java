package io.sluice.netty.partition;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.buffers.BufferConsumer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;

/**
 * Puts an announced blocking event ({@link EventSerializer.EventType#ANNOUNCED_BLOCKING_USER_EVENT}) into every
 * subpartition of a pipelined partition the way the partition queues its own events, for tests of the consumer's
 * side that need such an event on the wire independently of the writer's delivery tracking.
 *
 * <p>The caller emits only records that fill whole buffers before it (a full buffer is finished at once), so that
 * nothing written later joins a buffer queued before the event. Producer thread.
 */
public final class AnnouncedEvents {

    private AnnouncedEvents() {
    }

    /** Queues the announced blocking event {@code payload} in every subpartition of {@code writer}. */
    public static void queue(ResultPartitionWriter writer, ByteBuffer payload) {
        ResultPartition partition = (ResultPartition) writer;
        for (int i = 0; i < partition.numberOfSubpartitions(); i++) {
            partition.subpartition(i).add(new BufferConsumer(EventSerializer.announcedBlockingUserEvent(payload)),
                    false);
        }
    }
}
