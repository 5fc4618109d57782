package io.sluice.netty.partition;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.buffers.BufferConsumer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;

/**
 * For the adapter's consumer-side tests: queues an announced blocking event (the tag the writer's tracked aligned
 * barriers travel with) in every subpartition of a Sluice pipelined partition, as the partition queues its own
 * events, without the writer's delivery tracking. In Sluice's package because the subpartition's queue is
 * package-private; on the class path only, as the adapter's tests run.
 *
 * <p>The caller emits only whole buffers before it (a full buffer is finished at once), so that records written
 * later never join a buffer queued before the event. Producer thread.
 */
public final class AdapterAnnouncedEvents {

    private AdapterAnnouncedEvents() {
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
