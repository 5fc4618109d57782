package io.sluice.api;

/**
 * Told what became of an event, subpartition by subpartition, for events whose delivery an engine tracks
 * ({@link ResultPartitionWriter#broadcastAnnouncedBlockingEvent}): an engine that may later overtake the event (an
 * aligned checkpoint barrier that times out into an unaligned one) needs to know whether it is still queued.
 *
 * <p>Called exactly once per subpartition, on the environment's notification thread (never a Netty event loop,
 * never with a Sluice lock held; on the calling thread only when that thread is gone because the environment was
 * closed). It must not block for long: it holds up the environment's other notifications. An exception it throws
 * is logged and otherwise ignored.
 */
@FunctionalInterface
public interface EventDeliveryListener {

    /** What became of the event in one subpartition. */
    enum Outcome {
        /**
         * It went out in its place in the stream: the subpartition's consumer took it after everything queued
         * before it (for a {@link PartitionType#BLOCKING} partition: it was stored in its place).
         */
        SENT,
        /**
         * It never goes out in its place: {@link ResultPartitionWriter#prioritizeQueuedEvent} replaced it with a
         * priority event (the caller of that method already got the data it overtook).
         */
        PRIORITIZED,
        /**
         * It never goes out: the subpartition was released before its consumer took it (the consumer left, or the
         * writer failed, was closed or released).
         */
        DROPPED
    }

    /**
     * @param subpartition the subpartition, in {@code [0, numberOfSubpartitions())}
     * @param outcome      what became of the event there
     */
    void delivered(int subpartition, Outcome outcome);
}
