package io.sluice.netty.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.EventDeliveryListener;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferConsumer;
import io.sluice.buffers.BufferTrace;
import io.sluice.netty.event.EventSerializer;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * The queue of one consumer's data in a pipelined result partition: buffers under construction and finished ones,
 * events, and priority events that overtake them.
 *
 * <p>Threads: {@link #add}, {@link #finish()} and the checkpoint's calls ({@link #addPriorityEvent},
 * {@link #queuedUserEvents}, {@link #prioritize}) and {@link #addTrackedEvent} are called by the producer thread; {@link #flush()} by the producer
 * or the environment's flusher; {@link #pollBuffer()} by the single reader (through its view);
 * {@link #release(Throwable)} by any thread. All state is guarded by {@code lock}; listeners are called with no lock
 * held.
 *
 * <p>Tracked events ({@link #addTrackedEvent}): each one's listener is told exactly once what became of it: sent
 * when the reader takes it, prioritized when {@link #prioritize} replaces it, dropped when the queue is released.
 * The reader's and a release's outcomes go through the partition's notification executor
 * ({@link ResultPartition#tellDelivery}), since those threads may be event loops; the producer's own outcomes are
 * told on the producer thread, with no lock held.
 *
 * <p>Notification rule (the reader is never polled in a loop): the reader is told once each time the subpartition
 * goes from "nothing readable" to "something readable" — a complete element (an event, or a buffer its writer
 * finished), a flushed partial buffer, a priority event — and again on release. A poll that leaves nothing readable
 * re-arms the notification. The last, unfinished buffer counts in the backlog only after a flush and never makes
 * {@code isDataAvailable} true by itself, so a reader does not spin on it.
 *
 * <p>Flush deadlines: the subpartition keeps {@code unflushedSince}, a moment no later than the first byte of its
 * unfinished buffer that no flush or read has covered yet, so that the partition's {@code PeriodicFlusher} flushes
 * it only when that byte has waited almost the flush interval ({@code flushIfDue}), not at every tick: a buffer that
 * fills within the interval then goes whole instead of in pieces cut by the ticks.
 */
public final class PipelinedSubpartition {

    /** Life cycle of the subpartition's queue. */
    private enum State {
        /** Accepting data. */
        OPEN,
        /** The end-of-partition event is queued; nothing more is accepted. */
        FINISHED,
        /** Queue emptied and recycled; nothing more is accepted or read. */
        RELEASED
    }

    /** {@link #unflushedSince} when no byte waits for a flush; also what {@link #flushIfDue} returns then. */
    static final long NOTHING_UNFLUSHED = Long.MIN_VALUE;

    private final ResultPartition parent;
    private final int index;
    private final Object lock = new Object();

    @GuardedBy("lock")
    private final ArrayDeque<BufferConsumer> buffers = new ArrayDeque<>();
    /** Priority events, read before anything in {@link #buffers}. */
    @GuardedBy("lock")
    private final ArrayDeque<BufferConsumer> priorityEvents = new ArrayDeque<>();
    /** Data consumers in {@link #buffers}, finished or not. */
    @GuardedBy("lock")
    private int buffersInBacklog;
    /** User events queued and not yet taken by the reader (bounded by ResultPartitionWriter.MAX_QUEUED_EVENTS). */
    @GuardedBy("lock")
    private int queuedUserEvents;
    @GuardedBy("lock")
    private boolean flushRequested;
    /**
     * Written under {@code lock}; volatile so that {@link #isReleased()}, which the producer asks once per new
     * buffer, reads it without taking the lock the reader polls under (a contended monitor there is the producer's
     * hottest Sluice frame in a keyed Flink job such as the one {@code io.sluice.flink.bench.FlinkShuffleBenchmark}
     * runs).
     */
    private volatile State state = State.OPEN;
    @GuardedBy("lock")
    private Throwable failureCause;
    @GuardedBy("lock")
    private PipelinedSubpartitionView readView;
    /** The reader has taken the end-of-partition event. */
    @GuardedBy("lock")
    private boolean readToEnd;
    /** The reader was told that something is readable and has not yet polled the subpartition empty. */
    @GuardedBy("lock")
    private boolean readerNotified;
    /** The partition was told this subpartition needs nothing more (read to its end, or its reader left). */
    @GuardedBy("lock")
    private boolean doneReported;
    private int sequenceNumber; // reader thread only
    /** Queued events whose delivery is tracked, in queue order; null until the first one. */
    @GuardedBy("lock")
    private ArrayDeque<TrackedEvent> trackedEvents;
    /** The tracked event the reader's current poll took, for {@link #pollBuffer()} to report after the lock. */
    @GuardedBy("lock")
    private TrackedEvent justSent;
    /**
     * The reader took a blocking event and has not resumed yet: nothing is readable until
     * {@link #resumeConsumption()}. A second axis beside {@link State}: an OPEN or FINISHED queue may be blocked.
     */
    @GuardedBy("lock")
    private boolean blockedByEvent;
    /**
     * Priority events queued while {@link #blockedByEvent}, not announced to the reader yet: the reader cannot take
     * them before {@link #resumeConsumption()}, and a gate must not count a priority event it cannot hand out (its
     * priority future promises that the next poll returns one), so they are announced on resume.
     */
    @GuardedBy("lock")
    private int priorityEventsHeldBack;
    /**
     * The partition's clock ({@link ResultPartition#nanoTime()}) at or before the first byte of the unfinished tail
     * buffer that neither a flush request nor a read covers, or {@link #NOTHING_UNFLUSHED} (no unfinished tail, or a
     * flush is pending: the reader's next poll of the tail takes every byte committed until then, and stamps anew).
     * Stamped when a data buffer is queued (before its first byte), when the reader takes bytes from the unfinished
     * tail, and when a flush finds nothing to send. Written under {@code lock}; read without it by the flusher,
     * for which a stale value only moves a flush by one tick.
     */
    private volatile long unflushedSince = NOTHING_UNFLUSHED;

    /** The smallest buffer a consumer's announcement cuts; a smaller announced size is raised to it. */
    public static final int MIN_BUFFER_SIZE = 64;

    /**
     * The size at which the producer cuts this subpartition's next buffer (buffer debloating), or
     * {@link Integer#MAX_VALUE} for a whole segment: the starting size until a reader attaches (whole segments unless
     * the producer's environment debloats), then whole segments until the reader announces a size. Written by the
     * producer's setup, the reader's attach and whichever thread delivers the consumer's announcement; read by the
     * producer once per new buffer, never per record, so a change applies from the next buffer on and never changes
     * one being filled.
     */
    private volatile int bufferSize = Integer.MAX_VALUE;

    PipelinedSubpartition(ResultPartition parent, int index) {
        this.parent = parent;
        this.index = index;
    }

    /** This subpartition's index in its partition. */
    public int index() {
        return index;
    }

    /**
     * Queues {@code consumer}. Ownership of {@code consumer} passes to this subpartition in every case: when the
     * subpartition is finished or released it is closed at once.
     *
     * @return the number of queued elements after the add, or -1 when the subpartition no longer accepts data
     */
    int add(BufferConsumer consumer, boolean priority) {
        BufferAvailabilityListener listener = null;
        int queued;
        synchronized (lock) {
            if (state != State.OPEN) {
                consumer.close();
                return -1;
            }
            if (!consumer.isBuffer()) {
                queuedUserEvents++; // add() queues records and user events; the end of partition comes by finish()
            }
            if (priority) {
                listener = queuePriorityEventLocked(consumer);
            } else {
                buffers.add(consumer);
                if (consumer.isBuffer()) {
                    buffersInBacklog++;
                    // Before the buffer's first byte (the producer writes into it after this add returns); the bytes
                    // of the tail it follows need no flush now: a buffer with one behind it is readable.
                    unflushedSince = parent.nanoTime();
                }
                listener = listenerToNotifyLocked();
            }
            queued = buffers.size() + priorityEvents.size();
        }
        if (listener != null) {
            if (priority) {
                listener.notifyPriorityEvent();
            } else {
                listener.notifyDataAvailable();
            }
        }
        return queued;
    }

    /**
     * Queues the non-priority event {@code event} and tracks it: {@code listener} is told once what becomes of it
     * (see the class comment). Ownership of {@code event} passes to this subpartition in every case.
     *
     * @return false, having told {@code listener} nothing, when the subpartition no longer accepts data (the event
     *     was closed at once)
     */
    boolean addTrackedEvent(BufferConsumer event, EventDeliveryListener listener) {
        BufferAvailabilityListener reader;
        synchronized (lock) {
            if (state != State.OPEN) {
                event.close();
                return false;
            }
            queuedUserEvents++;
            buffers.add(event);
            if (trackedEvents == null) {
                trackedEvents = new ArrayDeque<>(2);
            }
            trackedEvents.add(new TrackedEvent(event, listener));
            reader = listenerToNotifyLocked();
        }
        if (reader != null) {
            reader.notifyDataAvailable();
        }
        return true;
    }

    /**
     * Queues the priority event {@code event} and, atomically with it (no byte can be sent in between), takes the
     * data it overtakes: for every data buffer queued, the bytes its reader has not taken yet (the unsent rest of a
     * partly read head buffer included), in stream order. Events in the queue are not taken. The caller has finished
     * the tail buffer, so no byte written later joins a buffer taken here. Producer thread.
     *
     * <p>Ownership: {@code event} passes to this subpartition in every case (closed at once when refused). Each
     * buffer added to {@code overtaken} is a read-only slice with a reference of its own, which the caller releases;
     * the queued buffer keeps its own and still goes to the reader after the event.
     *
     * @param event     a user event buffer's consumer
     * @param overtaken receives the overtaken data
     * @return false, having taken nothing, when the subpartition no longer accepts data (its consumer has gone)
     */
    boolean addPriorityEvent(BufferConsumer event, List<Buffer> overtaken) {
        BufferAvailabilityListener listener;
        synchronized (lock) {
            if (state != State.OPEN) {
                event.close();
                return false;
            }
            takeUnsentDataLocked(null, overtaken);
            queuedUserEvents++;
            listener = queuePriorityEventLocked(event);
        }
        if (listener != null) {
            listener.notifyPriorityEvent();
        }
        return true;
    }

    /**
     * The user events queued and not taken by the reader yet, in queue order: each queued element goes to
     * {@code elements}, and a read-only slice of its event buffer (a reference of its own, which the caller
     * releases) at the same place in {@code events}. Nothing while the subpartition does not accept data. Producer
     * thread.
     */
    void queuedUserEvents(List<BufferConsumer> elements, List<Buffer> events) {
        synchronized (lock) {
            if (state != State.OPEN) {
                return;
            }
            for (BufferConsumer queued : buffers) {
                if (queued.isBuffer()) {
                    continue;
                }
                Buffer event = unsentSliceLocked(queued);
                if (EventSerializer.typeOf(event) == EventSerializer.EventType.END_OF_PARTITION) {
                    event.recycleBuffer();
                    continue;
                }
                elements.add(queued);
                events.add(event);
            }
        }
    }

    /** What {@link #prioritize} did. */
    enum Prioritized {
        /** The queued event was replaced by the priority event. */
        DONE,
        /** The queued event was sent meanwhile: nothing changed. */
        ALREADY_SENT,
        /** The subpartition no longer accepts data (its consumer has gone): nothing changed. */
        RELEASED
    }

    /**
     * Takes {@code queuedEvent}, an event {@link #queuedUserEvents} listed, out of its place and queues the priority
     * event {@code replacement} instead, taking the data it overtakes as {@link #addPriorityEvent} does: only the data
     * queued before {@code queuedEvent}. A blocking event taken out no longer blocks this subpartition (it is never
     * sent); the queued event count and the backlog stay right, since one event replaces another and no data moves.
     * Producer thread.
     *
     * <p>Ownership: as {@link #addPriorityEvent}; {@code replacement} passes to this subpartition in every case.
     *
     * @return {@link Prioritized#DONE}, or why nothing changed (and nothing was taken)
     */
    Prioritized prioritize(BufferConsumer queuedEvent, BufferConsumer replacement, List<Buffer> overtaken) {
        BufferAvailabilityListener listener;
        TrackedEvent replaced;
        synchronized (lock) {
            if (state != State.OPEN) {
                replacement.close();
                return Prioritized.RELEASED;
            }
            if (!buffers.contains(queuedEvent)) {
                // The reader took it after it was listed: it was sent.
                replacement.close();
                return Prioritized.ALREADY_SENT;
            }
            takeUnsentDataLocked(queuedEvent, overtaken);
            replaced = untrackLocked(queuedEvent);
            buffers.removeFirstOccurrence(queuedEvent);
            queuedEvent.close();
            if (buffers.isEmpty()) {
                // A flush requested for the removed event has nothing left to serve.
                flushRequested = false;
            }
            listener = queuePriorityEventLocked(replacement);
        }
        if (listener != null) {
            listener.notifyPriorityEvent();
        }
        if (replaced != null) {
            AbstractResultPartition.tellDeliveryHere(replaced.listener(), index, EventDeliveryListener.Outcome.PRIORITIZED);
        }
        return Prioritized.DONE;
    }

    /** Stops tracking {@code event}; returns its entry, or null when it was not tracked. */
    @GuardedBy("lock")
    private TrackedEvent untrackLocked(BufferConsumer event) {
        if (trackedEvents == null) {
            return null;
        }
        for (Iterator<TrackedEvent> it = trackedEvents.iterator(); it.hasNext(); ) {
            TrackedEvent tracked = it.next();
            if (tracked.event() == event) {
                it.remove();
                return tracked;
            }
        }
        return null;
    }

    /** Queues a priority event (counted by the caller); returns the reader to tell of it, or null. */
    @GuardedBy("lock")
    private BufferAvailabilityListener queuePriorityEventLocked(BufferConsumer event) {
        priorityEvents.add(event);
        if (readView == null) {
            return null;
        }
        if (blockedByEvent) {
            priorityEventsHeldBack++;
            return null;
        }
        readerNotified = true;
        return readView.listener();
    }

    /**
     * Adds to {@code into} a slice of the unsent bytes of each data buffer queued before {@code stopAt} (all of
     * them when null); buffers with no unsent byte add nothing.
     */
    @GuardedBy("lock")
    private void takeUnsentDataLocked(BufferConsumer stopAt, List<Buffer> into) {
        for (BufferConsumer queued : buffers) {
            if (queued == stopAt) {
                return;
            }
            if (queued.isBuffer() && queued.isDataAvailable()) {
                into.add(unsentSliceLocked(queued));
            }
        }
    }

    /**
     * A read-only slice of the bytes of {@code queued} its reader has not taken, with a reference of its own; the
     * reader's position is left alone (the slice is built from a copy, which the reader never sees). Under
     * {@code lock}, which orders it with the reader's polls.
     */
    private static Buffer unsentSliceLocked(BufferConsumer queued) {
        try (BufferConsumer unsent = queued.copy()) {
            return unsent.build();
        }
    }

    /**
     * The producer finished the buffer at the tail of the queue. When it is the only element, the reader is told
     * now rather than when the next element arrives: a producer that blocks for its next buffer must not hold back
     * the one it just completed.
     */
    void onTailFinished() {
        notifyIfReadable();
    }

    private void notifyIfReadable() {
        BufferAvailabilityListener listener;
        synchronized (lock) {
            listener = listenerToNotifyLocked();
        }
        if (listener != null) {
            listener.notifyDataAvailable();
        }
    }

    /** The listener to tell now, or null: no reader, already told, or nothing readable. Sets the told flag. */
    @GuardedBy("lock")
    private BufferAvailabilityListener listenerToNotifyLocked() {
        if (readView == null || readerNotified || !isDataAvailableUnsafe()) {
            return null;
        }
        readerNotified = true;
        return readView.listener();
    }

    /** Queues an end-of-partition event without a data byte count; later adds are refused. Idempotent. */
    void finish() {
        queueEnd(EventSerializer.endOfPartition());
    }

    /**
     * Queues the end-of-partition event carrying {@code dataBytes}, the data bytes written to this subpartition
     * (which its consumer's gate checks); later adds are refused. Idempotent.
     */
    void finish(long dataBytes) {
        queueEnd(EventSerializer.endOfPartition(dataBytes));
    }

    /** Takes over {@code end}'s reference: queued, or dropped when the subpartition no longer accepts data. */
    private void queueEnd(Buffer end) {
        BufferAvailabilityListener listener;
        synchronized (lock) {
            if (state != State.OPEN) {
                end.recycleBuffer();
                return;
            }
            buffers.add(new BufferConsumer(end));
            state = State.FINISHED;
            unflushedSince = NOTHING_UNFLUSHED;
            listener = listenerToNotifyLocked();
        }
        if (listener != null) {
            listener.notifyDataAvailable();
        }
    }

    /** Makes what was written so far readable, telling the reader once. Never blocks. */
    public void flush() {
        BufferAvailabilityListener listener;
        synchronized (lock) {
            if (buffers.isEmpty() || flushRequested) {
                unflushedSince = NOTHING_UNFLUSHED;
                return;
            }
            // Read before the check: a byte committed after the check is committed after this moment too.
            long checkedAt = parent.nanoTime();
            // Only a queue with more than one element, or a lone buffer holding bytes, has something to flush.
            flushRequested = buffers.size() > 1 || buffers.peek().isDataAvailable();
            // Nothing to send: any later byte is written after checkedAt. A flush requested: the reader's poll stamps.
            unflushedSince = flushRequested || !isUnfinishedData(buffers.peek()) ? NOTHING_UNFLUSHED : checkedAt;
            if (BufferTrace.ENABLED && flushRequested && !buffers.peekLast().isWriterFinished()) {
                BufferTrace.committed(buffers.peekLast());
            }
            listener = listenerToNotifyLocked();
        }
        if (listener != null) {
            listener.notifyDataAvailable();
        }
    }

    /**
     * The flusher's check, without the lock while nothing is due: flushes when the oldest byte waiting for a flush
     * was written at least {@code waitNanos} before {@code now} (both on the partition's clock). Never blocks.
     * Environment's flush scheduler.
     *
     * @return when this subpartition is due next (a time on the partition's clock), or {@link #NOTHING_UNFLUSHED}
     *     when no byte waits for a flush
     */
    long flushIfDue(long now, long waitNanos) {
        long since = unflushedSince;
        if (since == NOTHING_UNFLUSHED) {
            return NOTHING_UNFLUSHED;
        }
        long due = since + waitNanos;
        if (now - due < 0) {
            return due;
        }
        flush();
        since = unflushedSince; // stamped anew when the flush found nothing to send
        return since == NOTHING_UNFLUSHED ? NOTHING_UNFLUSHED : since + waitNanos;
    }

    /**
     * Takes the next readable element, for the single reader.
     *
     * @return the element, or null when nothing is readable now
     */
    BufferAndBacklog pollBuffer() {
        BufferAndBacklog polled;
        TrackedEvent sent;
        synchronized (lock) {
            polled = pollLocked();
            sent = justSent;
            justSent = null;
        }
        if (sent != null) {
            parent.tellDelivery(sent.listener(), index, EventDeliveryListener.Outcome.SENT);
        }
        return polled;
    }

    @GuardedBy("lock")
    private BufferAndBacklog pollLocked() {
        if (state == State.RELEASED) {
            return null;
        }
        if (blockedByEvent) {
            readerNotified = false;
            return null;
        }
        Buffer buffer = null;
        boolean priority = false;
        BufferConsumer priorityEvent = priorityEvents.poll();
        if (priorityEvent != null) {
            buffer = priorityEvent.build();
            priorityEvent.close();
            priority = true;
        } else {
            while (!buffers.isEmpty()) {
                BufferConsumer head = buffers.peek();
                boolean isData = head.isBuffer();
                boolean last = buffers.size() == 1;
                // Read before build(): a byte the producer commits while build() runs is then stamped no later
                // than its commit, whichever side of build() it falls.
                long readAt = last ? parent.nanoTime() : NOTHING_UNFLUSHED;
                buffer = head.build();
                if (last) {
                    // Reading the last element serves any pending flush; bytes the producer writes into it
                    // from now on wait for the next one.
                    flushRequested = false;
                    unflushedSince = isUnfinishedData(head) ? readAt : NOTHING_UNFLUSHED;
                }
                boolean headFinished = head.isFinished();
                if (headFinished) {
                    buffers.poll();
                    head.close();
                    if (isData) {
                        buffersInBacklog--;
                    } else if (trackedEvents != null && !trackedEvents.isEmpty()
                            && trackedEvents.peek().event() == head) {
                        justSent = trackedEvents.poll();
                    }
                }
                if (buffer.readableBytes() > 0) {
                    break;
                }
                buffer.recycleBuffer();
                buffer = null;
                if (!headFinished) {
                    break;
                }
            }
        }
        if (buffer == null) {
            readerNotified = false;
            return null;
        }
        if (!buffer.isBuffer()) {
            EventSerializer.EventType type = EventSerializer.typeOf(buffer);
            if (!priority && type == EventSerializer.EventType.END_OF_PARTITION) {
                readToEnd = true;
            } else {
                queuedUserEvents--;
                if (!priority && type.blocks()) {
                    blockedByEvent = true;
                }
            }
        }
        boolean moreAvailable = isDataAvailableUnsafe();
        if (!moreAvailable) {
            // The reader stops here until it is told again.
            readerNotified = false;
        }
        return new BufferAndBacklog(buffer, moreAvailable, getBuffersInBacklogUnsafe(), nextIsEventUnsafe(),
                priority, sequenceNumber++);
    }

    /**
     * Unblocks the queue after a blocking event (see {@link io.sluice.api.InputGate#resumeConsumption(int)}); the
     * reader is told when something is readable. A queue that is not blocked ignores the call. Any thread.
     */
    void resumeConsumption() {
        BufferAvailabilityListener listener;
        BufferAvailabilityListener priorityListener = null;
        int heldBack;
        synchronized (lock) {
            if (!blockedByEvent) {
                return;
            }
            blockedByEvent = false;
            listener = listenerToNotifyLocked();
            heldBack = priorityEventsHeldBack;
            priorityEventsHeldBack = 0;
            if (heldBack > 0 && readView != null) {
                readerNotified = true;
                priorityListener = readView.listener();
            }
        }
        if (listener != null) {
            listener.notifyDataAvailable();
        }
        for (int i = 0; priorityListener != null && i < heldBack; i++) {
            priorityListener.notifyPriorityEvent();
        }
    }

    /**
     * The consumer wants buffers of at most {@code size} bytes from now on (or, before a reader attaches, the
     * producer's starting size): the producer cuts its next buffer at that size (at least {@link #MIN_BUFFER_SIZE}, at
     * most a segment). The buffer being filled keeps its size, so records are never split differently in the middle
     * of a buffer. Any thread.
     */
    void bufferSize(int size) {
        bufferSize = Math.max(MIN_BUFFER_SIZE, size);
    }

    /** The size at which the producer cuts the next buffer; {@link Integer#MAX_VALUE} for a whole segment. */
    int bufferSize() {
        return bufferSize;
    }

    /** Whether the reader took a blocking event and has not resumed since. */
    boolean isBlockedByEvent() {
        synchronized (lock) {
            return blockedByEvent;
        }
    }

    /** See {@link ResultSubpartitionView#isAvailable(int)}. */
    boolean isAvailable(int credits) {
        synchronized (lock) {
            if (state == State.RELEASED) {
                return false;
            }
            return credits > 0 ? isDataAvailableUnsafe() : nextIsEventUnsafe();
        }
    }

    /** Finished data buffers a credited reader can take now; takes the lock (exact when read, stale after). */
    int getBacklog() {
        synchronized (lock) {
            return getBuffersInBacklogUnsafe();
        }
    }

    /** User events queued that the reader has not taken yet. */
    int queuedUserEvents() {
        synchronized (lock) {
            return queuedUserEvents;
        }
    }

    /** Number of queued elements, priority events included. */
    public int getNumberOfQueuedBuffers() {
        synchronized (lock) {
            return buffers.size() + priorityEvents.size();
        }
    }

    /**
     * Creates the one reader of this subpartition; the reader is told at once when something is readable already,
     * and of each priority event queued before it existed, so that it hears of every priority event exactly once.
     *
     * @throws IllegalStateException when the subpartition was released or already has a reader
     */
    PipelinedSubpartitionView createReadView(BufferAvailabilityListener listener) {
        PipelinedSubpartitionView view;
        boolean notify;
        int priorityQueued;
        synchronized (lock) {
            if (state == State.RELEASED) {
                throw new IllegalStateException("subpartition " + index + " of partition " + parent.partitionId()
                        + " is released; it cannot be read");
            }
            if (readView != null) {
                throw new IllegalStateException("subpartition " + index + " of partition " + parent.partitionId()
                        + " already has a reader; a pipelined subpartition is read once");
            }
            view = new PipelinedSubpartitionView(this, listener);
            readView = view;
            // From now on the reader decides: a debloating one announces its size right after attaching.
            bufferSize = Integer.MAX_VALUE;
            notify = isDataAvailableUnsafe();
            readerNotified = notify;
            priorityQueued = priorityEvents.size();
        }
        if (notify) {
            listener.notifyDataAvailable();
        }
        for (int i = 0; i < priorityQueued; i++) {
            listener.notifyPriorityEvent();
        }
        return view;
    }

    /**
     * Empties and recycles the queue; the reader, if any, is told. Idempotent.
     *
     * @param cause the producer's failure, or null for a release without failure
     */
    void release(Throwable cause) {
        BufferAvailabilityListener listener = null;
        ArrayDeque<TrackedEvent> dropped;
        synchronized (lock) {
            if (state == State.RELEASED) {
                return;
            }
            dropped = releaseQueueLocked(cause);
            if (readView != null) {
                listener = readView.listener();
            }
        }
        if (listener != null) {
            listener.notifyDataAvailable();
        }
        tellDropped(dropped);
    }

    private void tellDropped(ArrayDeque<TrackedEvent> dropped) {
        if (dropped == null) {
            return;
        }
        for (TrackedEvent tracked : dropped) {
            parent.tellDelivery(tracked.listener(), index, EventDeliveryListener.Outcome.DROPPED);
        }
    }

    /** Called by the view when its reader lets go, after the end or early. */
    void onViewReleased() {
        boolean report;
        boolean wasReadToEnd;
        ArrayDeque<TrackedEvent> dropped = null;
        synchronized (lock) {
            if (state != State.RELEASED) {
                // Read to the end: nothing is left. Left early: the consumer has gone, so drop the rest.
                dropped = releaseQueueLocked(null);
            }
            report = !doneReported;
            doneReported = true;
            wasReadToEnd = readToEnd;
        }
        tellDropped(dropped);
        if (report) {
            parent.onSubpartitionDone(index, wasReadToEnd);
        }
    }

    public boolean isReleased() {
        return state == State.RELEASED;
    }

    Throwable getFailureCause() {
        synchronized (lock) {
            return failureCause;
        }
    }

    ResultPartition parent() {
        return parent;
    }

    /** Empties the queue; returns the tracked events it held (their listeners are told by the caller), or null. */
    @GuardedBy("lock")
    private ArrayDeque<TrackedEvent> releaseQueueLocked(Throwable cause) {
        state = State.RELEASED;
        failureCause = cause;
        for (BufferConsumer consumer : buffers) {
            consumer.close();
        }
        for (BufferConsumer consumer : priorityEvents) {
            consumer.close();
        }
        buffers.clear();
        priorityEvents.clear();
        priorityEventsHeldBack = 0;
        buffersInBacklog = 0;
        queuedUserEvents = 0;
        flushRequested = false;
        unflushedSince = NOTHING_UNFLUSHED;
        ArrayDeque<TrackedEvent> dropped = trackedEvents;
        trackedEvents = null;
        return dropped == null || dropped.isEmpty() ? null : dropped;
    }

    /** A data buffer its writer may still append to. */
    private static boolean isUnfinishedData(BufferConsumer consumer) {
        return consumer.isBuffer() && !consumer.isWriterFinished();
    }

    @GuardedBy("lock")
    private int getNumberOfFinishedBuffersUnsafe() {
        int size = buffers.size();
        if (size == 0) {
            return 0;
        }
        // Every element but the tail is complete. The tail is complete when it is an event, or a buffer whose writer
        // has finished it. (BufferConsumer.isFinished() is no test here: it turns true only once every byte was
        // read, so it would miss an unread event and count a buffer with nothing left to read.)
        BufferConsumer tail = buffers.peekLast();
        return size - 1 + (!tail.isBuffer() || tail.isWriterFinished() ? 1 : 0);
    }

    @GuardedBy("lock")
    private boolean isDataAvailableUnsafe() {
        if (blockedByEvent) {
            return false;
        }
        return !priorityEvents.isEmpty() || flushRequested || getNumberOfFinishedBuffersUnsafe() > 0;
    }

    @GuardedBy("lock")
    private boolean nextIsEventUnsafe() {
        if (blockedByEvent) {
            return false;
        }
        if (!priorityEvents.isEmpty()) {
            return true;
        }
        BufferConsumer head = buffers.peek();
        return head != null && !head.isBuffer();
    }

    @GuardedBy("lock")
    private int getBuffersInBacklogUnsafe() {
        if (buffersInBacklog == 0) {
            return 0;
        }
        BufferConsumer tail = buffers.peekLast();
        if (flushRequested || state != State.OPEN || !tail.isBuffer() || tail.isWriterFinished()) {
            return buffersInBacklog;
        }
        // The tail is a buffer under construction: it is not sendable until it is flushed or finished.
        return buffersInBacklog - 1;
    }

    @Override
    public String toString() {
        return "subpartition " + index + " of partition " + parent.partitionId();
    }

    /** A queued event and who is told what becomes of it. */
    private record TrackedEvent(BufferConsumer event, EventDeliveryListener listener) {
    }
}
