package io.sluice.netty.partition;

/**
 * The single reader's handle on one subpartition: a local input channel, or the server-side reader of a remote
 * channel.
 *
 * <p>{@link #getNextBuffer()} is called by one reader thread at a time (a consumer thread, or an event loop);
 * {@link #releaseAllResources()}, {@link #isReleased()} and {@link #getFailureCause()} from any thread.
 */
public interface ResultSubpartitionView {

    /**
     * The next buffer, or null when nothing is readable now (an empty unfinished buffer, or an empty queue).
     * After release returns null.
     */
    BufferAndBacklog getNextBuffer();

    /**
     * Whether a reader holding {@code credits} credits can take something now: with credit, any readable element;
     * without credit, only an event (events need no credit).
     */
    boolean isAvailable(int credits);

    /**
     * Finished data buffers a credited reader could take now, for backlog announcements and metrics: exact at the
     * moment of the call for a pipelined subpartition (read under its lock), an estimate from volatile counters for
     * a sort-merge one. May be stale by the time the caller uses it.
     */
    int getBacklog();

    /**
     * Lets the subpartition send again after the blocking event its reader took; ignored when it is not blocked.
     * Any thread.
     */
    void resumeConsumption();

    /**
     * The consumer announces that it wants buffers of at most {@code size} bytes (buffer debloating): a pipelined
     * subpartition cuts the buffers it starts from now on at that size (at least
     * {@link PipelinedSubpartition#MIN_BUFFER_SIZE}, at most a segment); the buffer being filled keeps its size.
     * Ignored by default: a blocking partition's buffers are cut when they are written, before any consumer asks.
     * Any thread.
     *
     * @param size the wanted buffer size in bytes, > 0
     */
    default void notifyNewBufferSize(int size) {
    }

    /** Releases this view and, unless the subpartition was read to its end, the subpartition's queued data. */
    void releaseAllResources();

    /** Whether the view, or the subpartition under it, was released. */
    boolean isReleased();

    /** The producer's failure when the subpartition was released because it failed, else null. */
    Throwable getFailureCause();

    /**
     * Lets a view whose data is in a file hand out {@link FileSpan}s (see {@link #pollFileSpan(int)}) instead of reading
     * data into memory; called by a reader that can send file bytes to its socket. Ignored by default.
     */
    default void enableFileSpans() {
    }

    /**
     * The next elements if they are data left in a file (only after {@link #enableFileSpans()}): as many consecutive
     * stored buffers as lie back to back in the file, at most {@code maxBuffers}, as one {@link FileSpan}; else null.
     * While a span is next, {@link #getNextBuffer()} returns null. Same thread rules as {@link #getNextBuffer()}.
     *
     * @param maxBuffers the most buffers the caller can send now (its receiver's credit), at least one
     */
    default FileSpan pollFileSpan(int maxBuffers) {
        return null;
    }
}
