package io.sluice.netty.partition;

import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

/**
 * One reader's view of the subpartitions {@code first..last} of a partition, read one after the other: it hands out
 * the elements of one subpartition's view up to its end of partition, swallows that end (only the last
 * subpartition's reaches the reader), opens the next view and releases the finished one. Credit and backlog are
 * those of the subpartition being read. Sequence numbers run on across the subpartitions, so the reader sees one
 * stream.
 *
 * <p>At a switch {@link #getNextBuffer()} returns null and tells the listener when the next subpartition has something
 * to read: the caller may not have credit for the next subpartition's first data buffer, so it must ask again with
 * {@link #isAvailable(int)} first.
 *
 * <p>The end of partition that reaches the reader carries the data bytes (and data buffers) of the whole range when
 * every subpartition counted them, else none, so that the consumer's checks that every data byte (and every stored
 * buffer) arrived cover the range.
 *
 * <p>Threads: as {@link ResultSubpartitionView}: {@link #getNextBuffer()}, {@link #pollFileSpan(int)} and
 * {@link #enableFileSpans()} on the one reader thread; the rest from any thread.
 */
public final class SubpartitionRangeView implements ResultSubpartitionView {

    private final RegisteredPartition partition;
    private final int first;
    private final int last;
    private final BufferAvailabilityListener listener;

    /** The subpartition being read (reader thread; read by others for messages only). */
    private volatile int currentIndex;
    /** The view of {@link #currentIndex}; replaced under {@code this} at a switch. */
    private volatile ResultSubpartitionView current;
    /** Set once, under {@code this}, so that a switch and a release never both keep a view. */
    private volatile boolean released;
    /** Why the next subpartition could not be opened; the range then counts as released. */
    private volatile Throwable switchFailure;

    /** Data bytes the finished subpartitions said they hold, or -1 once one did not say. Reader thread. */
    private long finishedDataBytes;
    /** Data buffers the finished subpartitions said they hold, or -1 once one did not say. Reader thread. */
    private long finishedDataBuffers;
    /** The sequence number of the next element handed out. Reader thread. */
    private int nextSequenceNumber;
    /** Whether the reader asked for file spans; applied to every later subpartition's view too. Reader thread. */
    private boolean fileSpans;

    private SubpartitionRangeView(RegisteredPartition partition, int first, int last,
                                  BufferAvailabilityListener listener) {
        this.partition = partition;
        this.first = first;
        this.last = last;
        this.listener = listener;
    }

    /**
     * Opens the view of {@code first}; the later ones are opened as the reader reaches them.
     *
     * @throws ShuffleException      as {@link RegisteredPartition#createSubpartitionView}
     * @throws IllegalStateException as {@link RegisteredPartition#createSubpartitionView}
     */
    public static SubpartitionRangeView open(RegisteredPartition partition, int first, int last,
                                      BufferAvailabilityListener listener) throws ShuffleException {
        SubpartitionRangeView range = new SubpartitionRangeView(partition, first, last, listener);
        range.currentIndex = first;
        range.current = partition.createSubpartitionView(first, listener);
        return range;
    }

    @Override
    public BufferAndBacklog getNextBuffer() {
        ResultSubpartitionView view = current;
        if (view == null || isReleased()) {
            return null;
        }
        BufferAndBacklog next = view.getNextBuffer();
        if (next == null) {
            return null;
        }
        Buffer buffer = next.buffer();
        if (!buffer.isBuffer() && !next.isPriority() && EventSerializer.isEndOfPartition(buffer)) {
            return endOfSubpartition(view, next);
        }
        return withSequenceNumber(next, buffer);
    }

    /** The end of the subpartition being read: the range's end after the last, else a switch to the next one. */
    private BufferAndBacklog endOfSubpartition(ResultSubpartitionView view, BufferAndBacklog end) {
        Buffer buffer = end.buffer();
        long bytes;
        long buffers;
        try {
            bytes = EventSerializer.dataBytesOf(buffer);
            buffers = EventSerializer.dataBuffersOf(buffer);
        } catch (IllegalArgumentException e) {
            // Hand the malformed end to the reader as it is: the consumer's gate reports it with its context.
            return withSequenceNumber(end, buffer);
        }
        if (currentIndex == last) {
            if (currentIndex == first || bytes < 0) {
                return withSequenceNumber(end, buffer);
            }
            buffer.recycleBuffer();
            Buffer rangeEnd;
            if (finishedDataBytes < 0) {
                rangeEnd = EventSerializer.endOfPartition();
            } else if (buffers < 0 || finishedDataBuffers < 0) {
                rangeEnd = EventSerializer.endOfPartition(finishedDataBytes + bytes);
            } else {
                rangeEnd = EventSerializer.endOfPartition(finishedDataBytes + bytes, finishedDataBuffers + buffers);
            }
            return withSequenceNumber(end, rangeEnd);
        }
        buffer.recycleBuffer();
        finishedDataBytes = bytes < 0 || finishedDataBytes < 0 ? -1 : finishedDataBytes + bytes;
        finishedDataBuffers = buffers < 0 || finishedDataBuffers < 0 ? -1 : finishedDataBuffers + buffers;
        openNext(view, currentIndex + 1);
        return null;
    }

    /**
     * Replaces {@code finished}, read to its end, by the view of subpartition {@code index}, and tells the listener
     * when that has something to read. The next view is published before the finished one is released, so that no
     * other thread ever sees a released view here that was not released by a failure.
     */
    private void openNext(ResultSubpartitionView finished, int index) {
        ResultSubpartitionView next;
        try {
            next = partition.createSubpartitionView(index, listener);
        } catch (ShuffleException | RuntimeException e) {
            switchFailure = new ProducerFailedException("partition " + partition.partitionId()
                    + " could not be read on at subpartition " + index + " of the range [" + first + ", " + last
                    + "] read by one channel (subpartitions " + first + ".." + (index - 1)
                    + " were read to their end): " + e, e);
            finished.releaseAllResources();
            listener.notifyDataAvailable();
            return;
        }
        boolean keep;
        synchronized (this) {
            keep = !released;
            if (keep) {
                currentIndex = index;
                current = next;
            }
        }
        // Read to its end: releasing the view lets the producer side count the subpartition as consumed.
        finished.releaseAllResources();
        if (!keep) {
            next.releaseAllResources();
            return;
        }
        if (fileSpans) {
            next.enableFileSpans();
        }
        // A notification the new view sent before it was published found nothing to read here: tell again, but
        // only when there is something, as a notification for nothing wakes the reader for nothing.
        if (next.isAvailable(1) || next.isReleased()) {
            listener.notifyDataAvailable();
        }
    }

    private BufferAndBacklog withSequenceNumber(BufferAndBacklog element, Buffer buffer) {
        return new BufferAndBacklog(buffer, element.isDataAvailable(), element.buffersInBacklog(),
                element.nextIsEvent(), element.isPriority(), nextSequenceNumber++);
    }

    @Override
    public FileSpan pollFileSpan(int maxBuffers) {
        ResultSubpartitionView view = current;
        if (view == null || isReleased()) {
            return null;
        }
        FileSpan span = view.pollFileSpan(maxBuffers);
        if (span == null) {
            return null;
        }
        FileSpan renumbered = new FileSpan(span.file(), span.position(), span.length(), span.buffers(),
                span.dataBytes(), span.isDataAvailable(), span.buffersInBacklog(), span.nextIsEvent(),
                nextSequenceNumber);
        nextSequenceNumber += span.buffers();
        return renumbered;
    }

    @Override
    public void enableFileSpans() {
        fileSpans = true;
        ResultSubpartitionView view = current;
        if (view != null) {
            view.enableFileSpans();
        }
    }

    @Override
    public boolean isAvailable(int credits) {
        ResultSubpartitionView view = current;
        return view != null && !isReleased() && view.isAvailable(credits);
    }

    @Override
    public int getBacklog() {
        ResultSubpartitionView view = current;
        return view == null ? 0 : view.getBacklog();
    }

    @Override
    public void resumeConsumption() {
        ResultSubpartitionView view = current;
        if (view != null) {
            view.resumeConsumption();
        }
    }

    @Override
    public void releaseAllResources() {
        ResultSubpartitionView view;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            view = current;
        }
        if (view != null) {
            view.releaseAllResources();
        }
    }

    @Override
    public boolean isReleased() {
        ResultSubpartitionView view = current;
        return released || switchFailure != null || (view != null && view.isReleased());
    }

    /**
     * Why the range ended early: the next subpartition could not be opened, or the subpartition being read was
     * released under its reader; either names the partition and the subpartition. Null while reading, and after
     * the reader released the range itself.
     */
    @Override
    public Throwable getFailureCause() {
        Throwable failure = switchFailure;
        if (failure != null) {
            return failure;
        }
        ResultSubpartitionView view = current;
        if (released || view == null || !view.isReleased()) {
            return null;
        }
        Throwable cause = view.getFailureCause();
        return new ProducerFailedException("partition " + partition.partitionId()
                + " was released while subpartition " + currentIndex + " of the range [" + first + ", " + last
                + "] was read by one channel" + (currentIndex == first ? ""
                : " (subpartitions " + first + ".." + (currentIndex - 1) + " were read to their end)")
                + (cause == null ? "" : ": " + cause.getMessage()), cause);
    }

    @Override
    public String toString() {
        return "view of subpartitions [" + first + ", " + last + "] of partition " + partition.partitionId()
                + " at subpartition " + currentIndex;
    }
}
