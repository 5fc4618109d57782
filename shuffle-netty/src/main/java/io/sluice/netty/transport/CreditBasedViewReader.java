package io.sluice.netty.transport;

import io.sluice.api.CorruptDataException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.ResultSubpartitionView;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server side of one remote input channel: reads one subpartition view and counts the credit its receiver
 * announced.
 *
 * <p>Threads: everything but {@link #notifyDataAvailable()} and {@link #notifyPriorityEvent()} runs on the
 * connection's event loop (the owning {@link PartitionRequestQueue}'s). Those two are called by producer threads
 * and only hand the reader to the queue.
 */
final class CreditBasedViewReader implements BufferAvailabilityListener {

    private final InputChannelId receiverId;
    private final ResultPartitionId partitionId;
    private final int subpartitionIndex;
    private final int lastSubpartitionIndex;
    private final PartitionRequestQueue queue;

    /** Set while a notification for this reader is on its way to the event loop: coalesces notifications. */
    private final AtomicBoolean notificationPending = new AtomicBoolean();

    private ResultSubpartitionView view; // event loop
    /** Buffers the receiver has room for; events need none. */
    private int credit; // event loop
    /** Whether the reader sits in the queue's available-readers deque (at most once). */
    private boolean queued; // event loop
    private boolean released; // event loop
    /** The buffer size the receiver announced last, or 0: handed to the view when it is attached. */
    private int announcedBufferSize; // event loop

    CreditBasedViewReader(InputChannelId receiverId, ResultPartitionId partitionId, int subpartitionIndex,
                          int initialCredit, PartitionRequestQueue queue) {
        this(receiverId, partitionId, subpartitionIndex, subpartitionIndex, initialCredit, queue);
    }

    /** A reader of the subpartitions {@code subpartitionIndex..lastSubpartitionIndex}, one after the other. */
    CreditBasedViewReader(InputChannelId receiverId, ResultPartitionId partitionId, int subpartitionIndex,
                          int lastSubpartitionIndex, int initialCredit, PartitionRequestQueue queue) {
        this.receiverId = receiverId;
        this.partitionId = partitionId;
        this.subpartitionIndex = subpartitionIndex;
        this.lastSubpartitionIndex = lastSubpartitionIndex;
        this.credit = initialCredit;
        this.queue = queue;
    }

    InputChannelId receiverId() {
        return receiverId;
    }

    ResultPartitionId partitionId() {
        return partitionId;
    }

    int subpartitionIndex() {
        return subpartitionIndex;
    }

    int lastSubpartitionIndex() {
        return lastSubpartitionIndex;
    }

    /** Attaches the view once the partition was found. Event loop. */
    void setView(ResultSubpartitionView view) {
        assert queue.inEventLoop() : "called off the connection's event loop";
        this.view = view;
        if (announcedBufferSize > 0) {
            // Announced while the partition was awaited: the view cuts its next buffers at that size.
            view.notifyNewBufferSize(announcedBufferSize);
        }
    }

    /** The receiver wants buffers of at most {@code bufferSize} bytes (buffer debloating). Event loop. */
    void announceBufferSize(int bufferSize) {
        assert queue.inEventLoop() : "called off the connection's event loop";
        announcedBufferSize = bufferSize;
        if (view != null && !released) {
            view.notifyNewBufferSize(bufferSize);
        }
    }

    /**
     * Adds credit announced by the receiver. Event loop.
     *
     * @return false, changing nothing, when the sum would exceed {@link Integer#MAX_VALUE}: no receiver owns that
     *         many buffers, so the receiver broke the credit protocol (the caller fails this reader)
     */
    boolean addCredit(int delta) {
        assert queue.inEventLoop() : "called off the connection's event loop";
        int sum = credit + delta;
        if (delta < 0 || sum < credit) {
            return false;
        }
        credit = sum;
        queue.traffic().addCredit(delta);
        return true;
    }

    int credit() {
        return credit;
    }

    boolean isQueued() {
        return queued;
    }

    void setQueued(boolean queued) {
        this.queued = queued;
    }

    boolean isReleased() {
        return released;
    }

    /**
     * Whether the reader can send something now: data with credit, an event without, or the error of a view that
     * was released under it.
     */
    boolean isAvailable() {
        ResultSubpartitionView current = view;
        return current != null && !released && (current.isAvailable(credit) || current.isReleased());
    }

    /**
     * The next buffer to send, taking one credit for a data buffer; null when there is none (see
     * {@link #isViewReleased()} for why). Ownership of the buffer passes to the caller.
     */
    BufferAndBacklog getNextBuffer() {
        BufferAndBacklog next = view.getNextBuffer();
        if (next != null && next.buffer().isBuffer()) {
            credit--;
            queue.traffic().addCredit(-1);
        }
        return next;
    }

    /**
     * The next elements if they are a span of a file and the receiver has credit: as many buffers as lie back to
     * back in the file, at most the credit, taking one credit per buffer; else null. Event loop.
     */
    FileSpan pollFileSpan() {
        if (credit <= 0) {
            return null;
        }
        FileSpan span = view.pollFileSpan(credit);
        if (span != null) {
            credit -= span.buffers();
            queue.traffic().addCredit(-span.buffers());
        }
        return span;
    }

    /** Whether this reader's connection sends file bytes as FileRegions (asked when a view is created). */
    @Override
    public boolean acceptsFileSpans() {
        return queue.sendsFileRegions();
    }

    /** Lets the view hand out file spans: this reader's connection can send file bytes. Event loop. */
    void enableFileSpans() {
        assert queue.inEventLoop() : "called off the connection's event loop";
        view.enableFileSpans();
    }

    boolean isViewReleased() {
        return view != null && view.isReleased();
    }

    /** The reason to send the receiver when the view was released under it. */
    Throwable failureCause() {
        Throwable cause = view == null ? null : view.getFailureCause();
        if (cause instanceof ProducerFailedException || cause instanceof CorruptDataException) {
            return cause;
        }
        if (cause != null) {
            return new ProducerFailedException("the producer of partition " + partitionId + " failed: " + cause, cause);
        }
        return new ProducerFailedException("partition " + partitionId + " (subpartition " + subpartitions()
                + ") was released by its producer before it was read to its end");
    }

    /** Unblocks the view after the blocking event it sent. Event loop. */
    void resumeConsumption() {
        assert queue.inEventLoop() : "called off the connection's event loop";
        if (view != null && !released) {
            view.resumeConsumption();
        }
    }

    /** Releases the view (the consumer is gone or done). Event loop; idempotent. */
    void release() {
        assert queue.inEventLoop() : "called off the connection's event loop";
        if (released) {
            return;
        }
        released = true;
        // The receiver's unused credit leaves the connection's count with the reader.
        queue.traffic().addCredit(-credit);
        if (view != null) {
            view.releaseAllResources();
        }
    }

    /** Marks a pending notification; false when one is already on its way. Any thread. */
    boolean markNotificationPending() {
        return notificationPending.compareAndSet(false, true);
    }

    /** Clears the pending mark before the reader's availability is checked. Event loop. */
    void clearNotificationPending() {
        assert queue.inEventLoop() : "called off the connection's event loop";
        notificationPending.set(false);
    }

    @Override
    public void notifyDataAvailable() {
        queue.notifyReaderNonEmpty(this);
    }

    /** The subpartition, or the range {@code first..last}, for messages. */
    private String subpartitions() {
        return lastSubpartitionIndex == subpartitionIndex ? String.valueOf(subpartitionIndex)
                : subpartitionIndex + ".." + lastSubpartitionIndex;
    }

    @Override
    public String toString() {
        return "reader of partition " + partitionId + " subpartition " + subpartitions() + " for receiver "
                + receiverId + " (credit " + credit + ")";
    }
}
