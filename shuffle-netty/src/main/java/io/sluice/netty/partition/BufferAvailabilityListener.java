package io.sluice.netty.partition;

/**
 * Told by a subpartition that its reader can make progress. Nobody polls a subpartition in a loop: a reader waits
 * for one of these calls.
 *
 * <p>Called on the producer's thread (or the flusher's, or whichever thread releases the subpartition) while no
 * subpartition lock is held. Implementations must not block: they hand the notification on (a gate's queue of
 * channels with data, or an event-loop task).
 */
public interface BufferAvailabilityListener {

    /** Data, an event, the end of the partition, or a release became available to the reader. */
    void notifyDataAvailable();

    /**
     * Whether this reader can send file bytes straight to its socket, so a view whose data is in a file may hand it
     * {@link FileSpan}s from the start ({@link ResultSubpartitionView#enableFileSpans()} from its first read).
     * Asked once, when the view is created. False by default.
     */
    default boolean acceptsFileSpans() {
        return false;
    }

    /** A priority event was queued ahead of the data; by default handled as plain data availability. */
    default void notifyPriorityEvent() {
        notifyDataAvailable();
    }
}
