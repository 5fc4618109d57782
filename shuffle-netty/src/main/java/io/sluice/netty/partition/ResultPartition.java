package io.sluice.netty.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.EventDeliveryListener;
import io.sluice.api.InFlightDataSink;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordFraming;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.api.WriterMetrics;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferBuilder;
import io.sluice.buffers.BufferConsumer;
import io.sluice.buffers.BufferPoolDestroyedException;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.metrics.WriterCounters;
import io.sluice.netty.notification.AvailabilityHandOff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A pipelined, bounded result partition: one {@link PipelinedSubpartition} per consumer, fed by one producer
 * thread that frames records into buffers of the partition's {@link LocalBufferPool}.
 *
 * <p>Records are framed as {@link io.sluice.api.RecordFraming} defines: a 4-byte big-endian length, then the bytes,
 * cut into buffers wherever a buffer fills. {@code emitRecord} blocks while the pool has no buffer (backpressure).
 *
 * <p>Threads: the emit, event and finish methods are called by one producer thread at a time (a change of thread
 * is ordered by the caller, as the API requires); they take no lock per record. Flushing, {@link #fail},
 * {@link #close()}, release and the metrics from any thread. Lock order: {@code stateLock}, then a subpartition's
 * lock.
 *
 * <p>Buffers under construction ({@code builders}) are confined to the producer thread: only a thread inside a
 * producer call, or a release running on the thread that made the latest producer call, writes or closes them. A
 * release from another thread (a consumer's failure, {@code releasePartitionsLocally}, the environment's close,
 * {@link #close()} from a canceller) sets {@code RELEASED}, releases the subpartitions (their consumers' references)
 * and destroys the pool, which wakes a blocked producer, but leaves the builders alone: each builder keeps its own
 * reference to its segment, so the segment cannot go back to a pool, be handed to anyone else or be freed while the
 * producer may still write into it. The producer returns them itself at its next call on its own thread (an emit,
 * broadcast, event or finish, which sees {@code RELEASED} with one volatile read, closes its builders and throws; or
 * a {@link #fail} or {@link #close()} on that thread); or, once that thread has ended, the release (or a check it
 * schedules on the flush scheduler every {@link #PRODUCER_END_CHECK_MILLIS} ms while the thread lives) closes them:
 * an ended thread's writes happen before {@link Thread#isAlive()} returns false. Until then the writer keeps at most
 * one buffer per subpartition: a producer thread that lives on and never calls the writer again keeps them until the
 * environment closes, since telling "between two calls" from "inside a call" would cost a full fence per record.
 * The environment's close does not close them either: once every segment is back it frees their
 * native memory, so a builder closed from a foreign thread could let a late producer write into freed memory. An
 * engine's producer always makes that next call (its emit throws, or it closes the writer when it stops).
 *
 * <p>Why a release on the producer's own thread may close the builders at once, and never races a producer on
 * another thread: every emit, broadcast, event and finish call first writes {@code producerThread} (volatile, only
 * when the thread changed) and then reads {@code state}; a release writes {@code state = RELEASED} and then reads
 * {@code producerThread}. Volatile accesses are sequentially consistent, so either the release sees the new producer
 * thread (and leaves the builders to it) or that producer sees {@code RELEASED} at its first check (and never
 * touches a builder); and a release that sees its own thread is not inside a producer call, so everything that
 * thread wrote into the builders happened before. The builders are closed once: whoever wins {@code buildersReturned}. This needs no lock and no ordering of the
 * hardware beyond the Java memory model. {@link #fail} and {@link #close()} do not claim the producer's thread
 * (an engine may call them from any thread, e.g. Flink's release of a partition), so a misplaced call never closes
 * a builder under a running producer.
 *
 * <p>Once released (by {@link #close()} before {@link #finish()}, {@link #fail}, {@code releasePartitionsLocally},
 * or the environment's close), {@code emitRecord}, {@code broadcastRecord}, the event methods, {@code emitRecovered}
 * and {@code finish} throw {@link ShuffleException} naming the partition and the reason of the release, also when the
 * release happens while the producer is inside the call (blocked on the pool or between two buffers): no data is
 * dropped silently and no unchecked exception escapes. Only the records for a subpartition whose consumer has gone
 * (the partition itself still running) are dropped without an error, as the API documents.
 */
public final class ResultPartition extends AbstractResultPartition {

    private static final Logger LOG = LoggerFactory.getLogger(ResultPartition.class);

    /** Life cycle of the partition. */
    private enum State {
        /** Built, no memory yet. */
        CREATED,
        /** Set up and registered: accepting records. */
        RUNNING,
        /** End of partition queued on every subpartition; waiting for the consumers to read it. */
        FINISHED,
        /** Memory returned, unregistered. Terminal. */
        RELEASED
    }

    private final PipelinedSubpartition[] subpartitions;
    private final ScheduledExecutorService flushScheduler;
    private final Duration flushInterval;
    /** With a zero flush interval every record is flushed as it is emitted. */
    private final boolean flushEveryRecord;

    /**
     * The buffer under construction of each subpartition, or null. Confined to the producer thread (see the class
     * Javadoc): written and closed only inside a producer call, or by a release on the latest producer's thread.
     */
    private final BufferBuilder[] builders;
    /**
     * Data bytes written to each subpartition's finished buffers, for its end of partition (the consumer's gate checks
     * that it took exactly as many). Confined to the producer.
     */
    private final long[] dataBytesWritten;
    /** The 4-byte length prefix of the record being written; reused for every record. Confined to the producer. */
    private final ByteBuffer lengthPrefix = ByteBuffer.allocate(4);
    /**
     * The thread of the latest producer call; written (only when it changes) before the call reads {@code state}.
     * A release on this thread may close the builders itself (class Javadoc).
     */
    private volatile Thread producerThread;
    /** Set by whoever closes the builders after the release (the producer or a release on its thread), once. */
    private final AtomicBoolean buildersReturned = new AtomicBoolean();
    /** Whether a check for the producer thread's end is scheduled (one chain of checks at a time). */
    private final AtomicBoolean watchingProducer = new AtomicBoolean();

    private final Object stateLock = new Object();
    private volatile State state = State.CREATED; // written under stateLock
    /** Why the partition was released, for the producer's exception; written under stateLock before RELEASED. */
    private volatile String releaseReason;
    /** What released the partition (a producer's failure, a close before finish), or null; written with the reason. */
    private volatile Throwable releaseCause;
    /** Whether the release came after finish(): then late emits are a usage error, not a release. */
    private volatile boolean releasedAfterFinish;
    @GuardedBy("stateLock")
    private int subpartitionsDone;
    private LocalBufferPool bufferPool; // written once under stateLock before RUNNING; read after
    /** Overdraft allowance; handed to the pool at setup and whenever it changes afterwards. */
    @GuardedBy("stateLock")
    private int maxOverdraftBuffers;
    /** The periodic flushes; null before setup, with a zero interval, and after release. */
    @GuardedBy("stateLock")
    private PeriodicFlusher flusher;
    /** Nanoseconds; {@link System#nanoTime()} but in tests. Any thread. */
    private final LongSupplier clock;

    private final AvailabilityHandOff availability;
    /** The environment's notification thread: tells tracked events' outcomes found on transport threads. */
    private final Executor notifications;

    /** What {@link #wakeUpFuture()} returns before setup: done (an emit then throws its usage error). */
    private static final CompletableFuture<?> NOT_SET_UP = CompletableFuture.completedFuture(null);
    /** How often a released partition whose builders a live producer thread holds checks whether it has ended. */
    private static final long PRODUCER_END_CHECK_MILLIS = 100;

    /**
     * @param flushScheduler the environment's one scheduler for periodic flushes (never a thread per partition)
     * @param flushInterval  zero to flush after every record
     * @param notifications  completes the availability futures the producer sees (the environment's notification
     *                       thread; {@code Runnable::run} completes them on the recycling thread)
     */
    public ResultPartition(ResultPartitionId partitionId, String ownerName, int numberOfSubpartitions,
                           ResultPartitionManager partitionManager, PartitionBufferPoolFactory poolFactory,
                           ScheduledExecutorService flushScheduler, Duration flushInterval, Executor notifications) {
        this(partitionId, ownerName, numberOfSubpartitions, partitionManager, poolFactory, flushScheduler,
                flushInterval, notifications, System::nanoTime);
    }

    /**
     * As the other constructor, with the clock that stamps the bytes waiting for a flush (tests drive it by hand).
     *
     * @param clock nanoseconds, as {@link System#nanoTime()}; called by the producer once per buffer, by the reader
     *              once per read of a partly filled buffer and by the flusher
     */
    public ResultPartition(ResultPartitionId partitionId, String ownerName, int numberOfSubpartitions,
                           ResultPartitionManager partitionManager, PartitionBufferPoolFactory poolFactory,
                           ScheduledExecutorService flushScheduler, Duration flushInterval, Executor notifications,
                           LongSupplier clock) {
        super(partitionId, ownerName, numberOfSubpartitions, partitionManager, poolFactory);
        this.clock = clock;
        this.availability = new AvailabilityHandOff(notifications);
        this.notifications = notifications;
        this.flushScheduler = flushScheduler;
        this.flushInterval = flushInterval;
        this.flushEveryRecord = flushInterval.isZero();
        this.subpartitions = new PipelinedSubpartition[numberOfSubpartitions];
        for (int i = 0; i < numberOfSubpartitions; i++) {
            subpartitions[i] = new PipelinedSubpartition(this, i);
        }
        this.builders = new BufferBuilder[numberOfSubpartitions];
        this.dataBytesWritten = new long[numberOfSubpartitions];
    }

    /**
     * Buffer debloating on the producer side: each subpartition cuts the buffers it starts before its reader attaches
     * at {@code size}, as its consumer's gate will ask at first, instead of whole segments; the reader decides after.
     * Before the producer writes.
     */
    public void startingBufferSize(int size) {
        for (PipelinedSubpartition subpartition : subpartitions) {
            subpartition.bufferSize(size);
        }
    }

    /** The subpartition at {@code index}. */
    public PipelinedSubpartition subpartition(int index) {
        return subpartitions[index];
    }

    /**
     * {@inheritDoc}
     *
     * <p>The allowance is the pool's ({@link LocalBufferPool#requestOverdraftBufferBuilder}); a record takes an
     * overdraft buffer only when the pool has none of its own free.
     */
    @Override
    public void setMaxOverdraftBuffers(int maxOverdraftBuffers) {
        if (maxOverdraftBuffers < 0) {
            throw new IllegalArgumentException("max overdraft buffers of partition " + partitionId + " of "
                    + ownerName + " must be >= 0, was " + maxOverdraftBuffers);
        }
        synchronized (stateLock) {
            this.maxOverdraftBuffers = maxOverdraftBuffers;
            if (bufferPool != null) {
                bufferPool.setMaxOverdraftBuffers(maxOverdraftBuffers);
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the environment is closed (or its close has begun): nothing stays reserved or
     *                          registered
     */
    @Override
    public void setup() throws IOException {
        synchronized (stateLock) {
            if (state == State.RELEASED && !releasedAfterFinish) {
                // Released before setup, e.g. by the environment's close.
                throw new ShuffleException("partition " + partitionId + " of " + ownerName + " cannot be set up: "
                        + releaseReason);
            }
            if (state != State.CREATED) {
                throw new IllegalStateException("partition " + partitionId + " of " + ownerName
                        + " is already set up (state " + state + ")");
            }
            bufferPool = poolFactory.createPartitionPool(partitionId, subpartitions.length);
            bufferPool.setMaxOverdraftBuffers(maxOverdraftBuffers);
            try {
                partitionManager.registerPartition(this);
            } catch (ShuffleException e) {
                bufferPool.lazyDestroy();
                bufferPool = null;
                throw new ShuffleException("partition " + partitionId + " of " + ownerName + " cannot be set up: "
                        + e.getMessage(), e);
            } catch (RuntimeException e) {
                bufferPool.lazyDestroy();
                bufferPool = null;
                throw e;
            }
            state = State.RUNNING;
            if (!flushEveryRecord) {
                flusher = new PeriodicFlusher(subpartitions, flushInterval, flushScheduler, clock,
                        "partition " + partitionId + " of " + ownerName);
                flusher.start();
            }
        }
        LOG.debug("Set up partition {} of {} with {} subpartitions", partitionId, ownerName, subpartitions.length);
    }

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the partition is or gets released (closed before finish, failed, released
     *                          locally or by the environment's close); the message names the partition and why
     */
    @Override
    public void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException {
        checkSubpartitionIndex(targetSubpartition);
        enterProducerCall();
        checkAcceptingRecords();
        emit(record, targetSubpartition);
    }

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the partition is or gets released, as {@link #emitRecord}
     */
    @Override
    public void broadcastRecord(ByteBuffer record) throws IOException {
        enterProducerCall();
        checkAcceptingRecords();
        for (int i = 0; i < subpartitions.length; i++) {
            emit(record, i);
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the partition is or gets released, as {@link #emitRecord}
     */
    @Override
    public void broadcastEvent(ByteBuffer event, boolean priority) throws IOException {
        queueEvent(event, priority, false);
    }

    /**
     * Like a non-priority {@link #broadcastEvent}, bounded the same way; each subpartition blocks once its reader
     * takes the event, until that reader resumes.
     *
     * @throws ShuffleException when the partition is or gets released, as {@link #emitRecord}
     */
    @Override
    public void broadcastBlockingEvent(ByteBuffer event) throws IOException {
        queueEvent(event, false, true);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Queued as {@link #broadcastBlockingEvent} queues, with its own tag (so that a remote consumer announces it);
     * each subpartition tells {@code delivery} when its reader takes the event (on the notification thread), when
     * {@link #prioritizeQueuedEvent} replaces it (on the producer thread, within that call) or when it is released
     * (on the notification thread; at once, on this thread, for a subpartition released already).
     *
     * @throws ShuffleException when the event is refused (too large, too many unread events: no subpartition gets it
     *                          and {@code delivery} is told nothing), or when the partition is or gets released, as
     *                          {@link #emitRecord} (each subpartition then tells {@code delivery} it was dropped)
     */
    @Override
    public void broadcastAnnouncedBlockingEvent(ByteBuffer event, EventDeliveryListener delivery)
            throws IOException {
        Objects.requireNonNull(delivery, "delivery");
        checkEventSize(event);
        enterProducerCall();
        checkAcceptingRecords();
        checkEventBound();
        for (int i = 0; i < subpartitions.length; i++) {
            finishBuilder(i);
            if (!subpartitions[i].addTrackedEvent(
                    new BufferConsumer(EventSerializer.announcedBlockingUserEvent(event)), delivery)) {
                tellDeliveryHere(delivery, i, EventDeliveryListener.Outcome.DROPPED);
            }
        }
        checkNotReleased(); // released while the event was being queued: some subpartitions may not have it
    }

    /**
     * Tells {@code listener} an outcome from a thread that may be an event loop or hold locks: through the
     * notification executor, or here when that executor is shut down (the environment closed).
     */
    void tellDelivery(EventDeliveryListener listener, int subpartition, EventDeliveryListener.Outcome outcome) {
        try {
            notifications.execute(() -> tellDeliveryHere(listener, subpartition, outcome));
        } catch (RejectedExecutionException e) {
            tellDeliveryHere(listener, subpartition, outcome);
        }
    }

    private void queueEvent(ByteBuffer event, boolean priority, boolean blocking) throws IOException {
        checkEventSize(event);
        enterProducerCall();
        checkAcceptingRecords();
        checkEventBound();
        for (int i = 0; i < subpartitions.length; i++) {
            if (!priority) {
                // Records after the event go into a new buffer behind it: order is kept.
                finishBuilder(i);
            }
            subpartitions[i].add(new BufferConsumer(blocking ? EventSerializer.blockingUserEvent(event)
                    : EventSerializer.userEvent(event)), priority);
        }
        checkNotReleased(); // released while the event was being queued: some subpartitions may not have it
    }

    /**
     * Throws unless every subpartition has room for one more event. All or nothing: only the producer adds events,
     * so a subpartition below the bound now stays below it.
     */
    private void checkEventBound() throws ShuffleException {
        for (PipelinedSubpartition subpartition : subpartitions) {
            checkEventBound(subpartition, "; the event was sent to no subpartition");
        }
    }

    private void checkEventBound(PipelinedSubpartition subpartition, String outcome) throws ShuffleException {
        int queued = subpartition.queuedUserEvents();
        if (queued >= MAX_QUEUED_EVENTS) {
            throw new ShuffleException("subpartition " + subpartition.index() + " of partition "
                    + partitionId + " of " + ownerName + " holds " + queued + " events its consumer has not "
                    + "read, the limit (ResultPartitionWriter.MAX_QUEUED_EVENTS = " + MAX_QUEUED_EVENTS
                    + "): its consumer is not reading events (or a non-priority event waits behind data "
                    + "it does not take)" + outcome);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each subpartition's buffer under construction is finished first, so the records emitted afterwards start
     * new buffers behind the event. Then, subpartition by subpartition, the event is queued ahead of the data under
     * the subpartition's lock together with taking the slices of the unsent bytes, so that no byte reaches the
     * reader between the two: what the sink gets is exactly what the event overtook. Once the event is queued
     * everywhere, the sink gets the slices, with no lock held. A subpartition whose consumer has gone hands nothing.
     * The segments always hold the bytes as written (a transport that compresses, {@code shuffle.compression.codec},
     * compresses into a copy as it sends), so the sink gets them uncompressed, as the consumer reads them.
     *
     * <p>Ownership: every buffer the sink gets holds a reference of its own to a segment of this partition's pool,
     * which the sink releases with {@link io.sluice.api.BufferOrEvent#recycle()}; the segment goes back only then,
     * also after this writer was closed or released. If the sink throws, the buffers it did not take are recycled
     * here, and the call throws a {@link ShuffleException} with the sink's exception as its cause.
     *
     * @throws ShuffleException when the event is refused (too large, too many unread events; then no subpartition
     *                          gets it and the sink gets nothing), when the partition is or gets released (as
     *                          {@link #emitRecord}), or when the sink throws
     */
    @Override
    public void broadcastPriorityEvent(ByteBuffer event, InFlightDataSink overtaken) throws IOException {
        Objects.requireNonNull(overtaken, "overtaken");
        checkEventSize(event);
        enterProducerCall();
        checkAcceptingRecords();
        checkEventBound();
        @SuppressWarnings("unchecked")
        List<Buffer>[] taken = new List[subpartitions.length];
        try {
            for (int i = 0; i < subpartitions.length; i++) {
                finishBuilder(i);
                taken[i] = new ArrayList<>();
                subpartitions[i].addPriorityEvent(new BufferConsumer(EventSerializer.userEvent(event)), taken[i]);
            }
            checkNotReleased(); // released while the event was being queued: some subpartitions may not have it
        } catch (IOException | RuntimeException e) {
            for (List<Buffer> buffers : taken) {
                recycleAll(buffers, 0);
            }
            throw e;
        }
        for (int i = 0; i < subpartitions.length; i++) {
            handOver(i, taken[i], overtaken, taken, i + 1);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Subpartition by subpartition: its queued user events are listed under its lock (each with a read-only view
     * of its payload), {@code replacement} is asked about them in order with no lock held, and the first match is
     * replaced under the lock, taking the unsent bytes of the data queued before it as
     * {@link #broadcastPriorityEvent} does; the sink then gets them before the next subpartition is looked at. A match
     * the reader took in the meantime was sent: the next match is tried. Data queued after the event is not
     * overtaken, so no buffer under construction needs finishing.
     *
     * @throws ShuffleException when a replacement exceeds {@link #MAX_EVENT_BYTES} (the subpartitions before it
     *                          were changed and their data handed over, the later ones were not looked at), when
     *                          the partition was released, or when the sink throws (ownership as in
     *                          {@link #broadcastPriorityEvent})
     */
    @Override
    public int prioritizeQueuedEvent(Function<ByteBuffer, ByteBuffer> replacement, InFlightDataSink overtaken)
            throws IOException {
        Objects.requireNonNull(replacement, "replacement");
        Objects.requireNonNull(overtaken, "overtaken");
        enterProducerCall();
        checkAcceptingRecords();
        int changed = 0;
        List<BufferConsumer> elements = new ArrayList<>();
        List<Buffer> events = new ArrayList<>();
        List<Buffer> taken = new ArrayList<>();
        for (int i = 0; i < subpartitions.length; i++) {
            PipelinedSubpartition subpartition = subpartitions[i];
            subpartition.queuedUserEvents(elements, events);
            try {
                for (int e = 0; e < elements.size(); e++) {
                    ByteBuffer payload = replacement.apply(EventSerializer.payloadOf(events.get(e)));
                    if (payload == null) {
                        continue;
                    }
                    if (payload.remaining() > MAX_EVENT_BYTES) {
                        throw new ShuffleException("the replacement of a queued event in " + subpartition
                                + " has " + payload.remaining() + " bytes, more than the limit of " + MAX_EVENT_BYTES
                                + " bytes per event (ResultPartitionWriter.MAX_EVENT_BYTES); of the subpartitions "
                                + "before it, " + changed + " were changed and their overtaken data handed over, "
                                + "the later ones were not looked at");
                    }
                    PipelinedSubpartition.Prioritized outcome = subpartition.prioritize(elements.get(e),
                            new BufferConsumer(EventSerializer.userEvent(payload)), taken);
                    if (outcome == PipelinedSubpartition.Prioritized.DONE) {
                        changed++;
                    }
                    if (outcome != PipelinedSubpartition.Prioritized.ALREADY_SENT) {
                        break;
                    }
                }
            } finally {
                recycleAll(events, 0);
                elements.clear();
            }
            handOver(i, taken, overtaken, null, 0);
            taken.clear();
        }
        checkNotReleased();
        return changed;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Data: the buffer under construction is finished before and after, so the recovered bytes fill buffers of
     * their own (as many as they need, cut at the consumer's announced size like any buffer) and never share one with
     * records; each buffer is taken as {@link #emitRecord} takes one (blocking while the pool has none, overdraft
     * included), and its bytes count in the data bytes the end of partition carries. An event: queued for this
     * subpartition only, in order, bounded like {@link #broadcastEvent}. Records and recovered data for a
     * subpartition whose consumer has gone are dropped without an error, as records are.
     *
     * @throws ShuffleException when the partition is or gets released (as {@link #emitRecord}), or an event is
     *                          refused as by {@link #broadcastEvent}
     */
    @Override
    public void emitRecovered(int targetSubpartition, ByteBuffer bytes, boolean isEvent) throws IOException {
        checkSubpartitionIndex(targetSubpartition);
        if (isEvent) {
            checkEventSize(bytes);
        }
        enterProducerCall();
        checkAcceptingRecords();
        PipelinedSubpartition subpartition = subpartitions[targetSubpartition];
        if (isEvent) {
            checkEventBound(subpartition, "; the recovered event was not queued");
        }
        finishBuilder(targetSubpartition);
        if (isEvent) {
            subpartition.add(new BufferConsumer(EventSerializer.userEvent(bytes)), false);
            checkNotReleased();
            return;
        }
        int start = bytes.position();
        try {
            write(bytes, targetSubpartition);
        } finally {
            bytes.position(start);
        }
        finishBuilder(targetSubpartition);
    }

    /**
     * Hands {@code buffers} (the data overtaken in subpartition {@code index}, in order) to {@code sink}, each
     * wrapped as an {@link OvertakenBuffer} that owns its reference. If the sink throws, the buffer it was given is
     * recycled unless the sink recycled it, the rest of {@code buffers} and of {@code later} (from index
     * {@code laterFrom}, other subpartitions' buffers not handed yet; may be null) are recycled, and a
     * {@link ShuffleException} names the subpartition.
     */
    private void handOver(int index, List<Buffer> buffers, InFlightDataSink sink, List<Buffer>[] later,
                          int laterFrom) throws ShuffleException {
        PipelinedSubpartition subpartition = subpartitions[index];
        for (int b = 0; b < buffers.size(); b++) {
            OvertakenBuffer handed = new OvertakenBuffer(subpartition.toString(), index, buffers.get(b));
            try {
                sink.accept(index, handed);
            } catch (RuntimeException e) {
                handed.recycleIfHeld();
                recycleAll(buffers, b + 1);
                if (later != null) {
                    for (int l = laterFrom; l < later.length; l++) {
                        recycleAll(later[l], 0);
                    }
                }
                throw new ShuffleException("the in-flight data sink failed on an overtaken buffer of " + subpartition
                        + "; the buffers not handed to it were recycled: " + e, e);
            }
        }
    }

    /** Recycles {@code buffers} from index {@code from} on and clears the list; null does nothing. */
    private static void recycleAll(List<Buffer> buffers, int from) {
        if (buffers == null) {
            return;
        }
        for (int b = from; b < buffers.size(); b++) {
            buffers.get(b).recycleBuffer();
        }
        buffers.clear();
    }

    @Override
    public void flush(int targetSubpartition) {
        checkSubpartitionIndex(targetSubpartition);
        subpartitions[targetSubpartition].flush();
    }

    @Override
    public void flushAll() {
        for (PipelinedSubpartition subpartition : subpartitions) {
            subpartition.flush();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Threads: a future that is done when returned stays so; a pending one is completed by the environment's
     * notification thread ({@code sluice-notify-<environment>}), never by a Netty event loop or a thread that
     * recycles buffers, so a continuation may call {@link #emitRecord} (and block in it) safely. A released
     * partition returns a done future (its {@code emitRecord} then throws).
     */
    @Override
    public CompletableFuture<?> availableFuture() {
        LocalBufferPool pool = bufferPool;
        if (pool == null || state == State.RELEASED) {
            return CompletableFuture.completedFuture(null);
        }
        return availability.detach(pool.getAvailableFuture());
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffer pool's own future, the one {@link #availableFuture()} detaches: a pending one is completed, outside
     * the pool's lock, by the thread that recycles the buffer that makes the pool available (a Netty event loop once
     * a remote consumer's buffer was written, a local consumer's thread) or by the thread that releases the partition.
     * A released partition returns a done future.
     */
    @Override
    public CompletableFuture<?> wakeUpFuture() {
        // Flink asks before every record: one plain and one volatile read, nothing else. A released partition's pool
        // is destroyed, and a destroyed pool's future is done, so the release needs no check of its own here.
        LocalBufferPool pool = bufferPool;
        return pool == null ? NOT_SET_UP : pool.getAvailableFuture();
    }

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the partition was released (as {@link #emitRecord})
     * @throws IllegalStateException before {@link #setup()} or after a first {@code finish()}
     */
    @Override
    public void finish() throws IOException {
        boolean releaseNow;
        enterProducerCall();
        State current = state;
        if (current == State.RELEASED && !releasedAfterFinish) {
            throw releasedException(null);
        }
        if (current != State.RUNNING) {
            throw new IllegalStateException("partition " + partitionId + " of " + ownerName + " cannot finish: "
                    + (current == State.CREATED ? "setup() was not called" : "it is " + current));
        }
        for (int i = 0; i < subpartitions.length; i++) {
            finishBuilder(i);
            subpartitions[i].finish(dataBytesWritten[i]);
        }
        boolean finished;
        synchronized (stateLock) {
            finished = state == State.RUNNING;
            if (finished) {
                state = State.FINISHED;
            }
            // Consumers may have read everything (or left) before the state changed.
            releaseNow = finished && subpartitionsDone == subpartitions.length;
        }
        if (!finished) {
            // Released by another thread meanwhile; the release has cleaned up, the end was not queued.
            throw releasedException(null);
        }
        LOG.debug("Partition {} of {} finished: {} buffers, {} bytes", partitionId, ownerName, buffersOut(),
                bytesOut());
        if (releaseNow) {
            release(null);
        }
    }

    @Override
    public void fail(Throwable cause) {
        Objects.requireNonNull(cause, "cause");
        LOG.info("Partition {} of {} failed by its producer: {}", partitionId, ownerName, cause.toString());
        release(cause, "fail() was called: " + cause);
    }

    /**
     * Closes the writer: after {@link #finish()} the data stays for its consumers and the partition is released
     * once each subpartition was read; before it, the partition is released at once and its consumers fail.
     *
     * <p>Any thread. On the thread of the producer's latest call it also returns the buffers under construction
     * (also when the partition was released before); on another thread the producer returns them at its next call.
     */
    @Override
    public void close() {
        State current = state;
        if (current == State.RELEASED) {
            returnBuildersIfProducerThread();
            return;
        }
        if (current == State.FINISHED) {
            return;
        }
        release(current == State.CREATED ? null : new ProducerFailedException("partition " + partitionId + " of "
                + ownerName + " was closed by its producer before finish()"),
                "the writer was closed" + (current == State.CREATED ? " before setup()" : " before finish()"));
    }

    /**
     * Releases the partition: consumers still reading fail ({@code cause}, or a plain release), the memory goes
     * back, and the partition manager forgets it. Any thread; idempotent.
     *
     * @param cause the producer's failure, or null; its message becomes the reason a later emit reports
     */
    @Override
    public void release(Throwable cause) {
        release(cause, cause == null ? "it was released (releasePartitionsLocally or releasePartitionExternally)"
                : "it was released: " + cause.getMessage());
    }

    private void release(Throwable cause, String reason) {
        boolean alreadyReleased;
        PeriodicFlusher flush;
        LocalBufferPool pool;
        synchronized (stateLock) {
            alreadyReleased = state == State.RELEASED;
            if (!alreadyReleased) {
                releasedAfterFinish = state == State.FINISHED;
                releaseReason = releasedAfterFinish ? "finish() was called" : reason;
                releaseCause = releasedAfterFinish ? null : cause;
                state = State.RELEASED;
            }
            flush = flusher;
            flusher = null;
            pool = bufferPool;
        }
        if (alreadyReleased) {
            // An earlier release on another thread left the builders to the producer; this may be its thread.
            returnBuildersIfProducerThread();
            return;
        }
        if (flush != null) {
            flush.stop();
        }
        partitionManager.onPartitionReleased(this, cause);
        for (PipelinedSubpartition subpartition : subpartitions) {
            subpartition.release(cause);
        }
        if (pool != null) {
            // Wakes a producer blocked on the pool; it sees RELEASED and throws the release's reason.
            pool.lazyDestroy();
        }
        returnBuildersIfProducerThread();
        LOG.debug("Released partition {} of {}{}", partitionId, ownerName, cause == null ? "" : " (" + cause + ")");
    }

    /** The partition's clock, in nanoseconds: what its subpartitions stamp the bytes waiting for a flush with. */
    long nanoTime() {
        return clock.getAsLong();
    }

    /** Whether the partition was released. */
    @Override
    public boolean isReleased() {
        return state == State.RELEASED;
    }

    /** Whether {@link #finish()} was called (and the partition not yet released). */
    public boolean isFinished() {
        return state == State.FINISHED;
    }

    /** Time the producer spent blocked for lack of a buffer, a wait in progress included. */
    public long backpressuredNanos() {
        return counters.backpressuredNanos(System.nanoTime());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads the counters without a lock, and the pool's usage and each subpartition's backlog under their own
     * locks for a moment (never a lock the producer holds while it waits), so a reader never waits for a blocked
     * producer.
     */
    @Override
    public WriterMetrics metrics() {
        State current = state;
        List<Integer> backlog = List.of();
        if (current == State.RUNNING || current == State.FINISHED) {
            Integer[] perSubpartition = new Integer[subpartitions.length];
            for (int i = 0; i < subpartitions.length; i++) {
                perSubpartition[i] = subpartitions[i].getBacklog();
            }
            backlog = List.of(perSubpartition);
        }
        return counters.snapshot(partitionId, ownerName, bytesOut(), buffersOut(), bufferPool, backlog);
    }

    /** The partition's pool (for tests and metrics), or null before setup. */
    public LocalBufferPool bufferPool() {
        return bufferPool;
    }

    /**
     * Creates the reader view of one subpartition.
     *
     * @throws IllegalStateException when the partition is released or the subpartition already has a reader
     */
    @Override
    public ResultSubpartitionView createSubpartitionView(int index, BufferAvailabilityListener listener) {
        checkRequestedSubpartition(index);
        return subpartitions[index].createReadView(listener);
    }

    /** A subpartition needs nothing more: read to its end, or its reader left early. */
    void onSubpartitionDone(int index, boolean readToEnd) {
        boolean releaseNow;
        synchronized (stateLock) {
            subpartitionsDone++;
            releaseNow = state == State.FINISHED && subpartitionsDone == subpartitions.length;
        }
        LOG.debug("Subpartition {} of partition {} done ({})", index, partitionId,
                readToEnd ? "read to its end" : "its reader left");
        if (releaseNow) {
            release(null);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Producer thread (the builders are confined to it; see the class Javadoc)
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Starts a producer call: records the calling thread before the caller reads {@code state} (the order the
     * release handshake in the class Javadoc needs). One volatile read per call; a write only when the thread
     * changed.
     */
    private void enterProducerCall() {
        Thread current = Thread.currentThread();
        if (producerThread != current) {
            producerThread = current;
        }
    }

    /**
     * After {@code state} became {@code RELEASED}: closes the builders when this thread made the latest producer
     * call or that thread has ended, else leaves them to the producer's next call and watches for its end.
     */
    private void returnBuildersIfProducerThread() {
        Thread producer = producerThread;
        if (producer == Thread.currentThread()) {
            returnBuilders();
        } else {
            returnBuildersOnceProducerEnded();
        }
    }

    /**
     * Closes the builders once the thread of the latest producer call has ended, checking again every
     * {@link #PRODUCER_END_CHECK_MILLIS} on the flush scheduler until then (or until the producer returned them at
     * its next call). A producer thread that emitted, flushed and ended, its writer closed by another thread, would
     * otherwise keep a partial buffer per subpartition until the environment closes. Safe without the producer's
     * cooperation: every write of an ended thread happens before {@link Thread#isAlive()} returns false, and a
     * producer call on a new thread reads {@code RELEASED} before it touches a builder (class Javadoc). Any thread.
     */
    private void returnBuildersOnceProducerEnded() {
        if (!returnBuildersIfProducerEnded() && watchingProducer.compareAndSet(false, true)) {
            checkProducerEndLater();
        }
    }

    /** @return true when nothing is left to watch: the builders were returned, now or before */
    private boolean returnBuildersIfProducerEnded() {
        if (buildersReturned.get()) {
            return true;
        }
        Thread producer = producerThread;
        if (producer == null || !producer.isAlive()) {
            returnBuilders();
            return true;
        }
        return false;
    }

    /** Schedules the next check for the producer thread's end on the flush scheduler. */
    private void checkProducerEndLater() {
        try {
            flushScheduler.schedule(() -> {
                if (!returnBuildersIfProducerEnded()) {
                    checkProducerEndLater();
                }
            }, PRODUCER_END_CHECK_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The environment is closing: it leaves the memory of builders still held to the garbage collector.
            LOG.debug("Partition {} of {}: a live producer thread still holds its buffers under construction as the "
                    + "environment closes", partitionId, ownerName);
        }
    }

    /**
     * Closes every builder, once: a released partition's segments go back (to the pool's owner, the pool being
     * destroyed). Only on the producer's thread, or once that thread has ended, after {@code state} became
     * {@code RELEASED}: no builder is created afterwards, as every producer call checks the state first.
     */
    private void returnBuilders() {
        if (!buildersReturned.compareAndSet(false, true)) {
            return;
        }
        for (int i = 0; i < builders.length; i++) {
            if (builders[i] != null) {
                builders[i].close();
                builders[i] = null;
            }
        }
    }

    /**
     * Throws unless the partition accepts records: {@link ShuffleException} once released (unless after finish),
     * {@link IllegalStateException} for a usage error (before setup, after finish).
     */
    private void checkAcceptingRecords() throws ShuffleException {
        State current = state;
        if (current == State.RUNNING) {
            return;
        }
        if (current == State.RELEASED && !releasedAfterFinish) {
            throw releasedException(null);
        }
        throw new IllegalStateException("partition " + partitionId + " of " + ownerName + " does not accept records: "
                + (current == State.CREATED ? "setup() was not called" : "finish() was called"));
    }

    /**
     * The producer's error for a released partition (or a pool destroyed under it: the environment closing), carrying
     * {@code cause}, or else what released the partition. Once released, it first returns the builders: the producer
     * thread is the one that may close them.
     */
    private ShuffleException releasedException(Throwable cause) {
        boolean released = state == State.RELEASED;
        if (released) {
            returnBuilders();
        }
        String reason = released ? releaseReason
                : "its buffer pool was destroyed (the shuffle environment is closing)";
        return new ShuffleException("partition " + partitionId + " of " + ownerName + " does not accept records: "
                + reason, cause != null || !released ? cause : releaseCause);
    }

    private void emit(ByteBuffer record, int target) throws IOException {
        counters.onRecords(1);
        if (!appendWhole(record, target)) {
            appendAcrossBuffers(record, target);
        }
        if (flushEveryRecord) {
            subpartitions[target].flush();
        }
    }

    /**
     * Fast path: when the whole framed record fits the current buffer, prefix and bytes go in with one append and
     * one commit, and the record's position is never moved (so there is nothing to restore). The prefix is the 4
     * big-endian bytes RecordFraming.putLength writes (RecordFramingWriterTest).
     *
     * @return false, having written nothing, when there is no current buffer or the record does not fit it
     */
    private boolean appendWhole(ByteBuffer record, int target) {
        BufferBuilder builder = builders[target];
        if (builder == null || !builder.appendPrefixedAndCommit(RecordFraming.checkedLength(record.remaining()),
                record)) {
            return false;
        }
        if (builder.isFull()) {
            finishBuilder(target);
        }
        return true;
    }

    /**
     * The general path: the length prefix, then the record's bytes over as many buffers as they need (new ones
     * block while the pool has none). The record's position moves as its bytes are copied and is restored however
     * the call ends, as emitRecord promises.
     */
    private void appendAcrossBuffers(ByteBuffer record, int target) throws IOException {
        int start = record.position();
        try {
            if (writeLength(record.remaining(), target)) {
                write(record, target);
            }
        } finally {
            record.position(start);
        }
    }

    /** Appends a record's length prefix; false when the record must be dropped. */
    private boolean writeLength(int length, int target) throws IOException {
        BufferBuilder builder = builders[target];
        // Fast path for small records: the prefix goes straight into the current buffer, and is committed together
        // with the record's bytes in write() (one volatile write per record). appendInt writes the 4 big-endian
        // bytes that RecordFraming.putLength writes (RecordFramingWriterTest checks they agree).
        if (builder != null && builder.appendInt(RecordFraming.checkedLength(length))) {
            if (builder.isFull()) {
                // The prefix took the last bytes: finishing publishes it and starts the record in a new buffer.
                finishBuilder(target);
            }
            return true;
        }
        lengthPrefix.clear();
        RecordFraming.putLength(lengthPrefix, length);
        lengthPrefix.flip();
        return write(lengthPrefix, target);
    }

    /** Appends and commits {@code source}'s remaining bytes to the subpartition; false when they were dropped. */
    private boolean write(ByteBuffer source, int target) throws IOException {
        BufferBuilder builder = builders[target];
        if (builder != null && !source.hasRemaining()) {
            // An empty record after a fast-path prefix: publish the prefix.
            builder.commit();
        }
        while (source.hasRemaining()) {
            if (builder == null) {
                builder = newBuilder(target);
                if (builder == null) {
                    return false;
                }
            }
            builder.appendAndCommit(source);
            if (builder.isFull()) {
                finishBuilder(target);
                builder = null;
            }
        }
        return true;
    }

    /** A new buffer for {@code target}, queued on its subpartition; null when the bytes must be dropped. */
    private BufferBuilder newBuilder(int target) throws IOException {
        PipelinedSubpartition subpartition = subpartitions[target];
        if (subpartition.isReleased()) {
            // Its consumer has gone: drop, and never block on it. A release of the whole partition is an error.
            checkNotReleased();
            return null;
        }
        BufferBuilder builder;
        try {
            builder = bufferPool.requestBufferBuilder(target);
            if (builder == null) {
                // Within the overdraft allowance, a record under way completes without blocking (0: no overdraft).
                builder = bufferPool.requestOverdraftBufferBuilder(target);
            }
        } catch (BufferPoolDestroyedException e) {
            // A concurrent release (or the environment's close) destroyed the pool after the state check.
            throw releasedException(e);
        }
        if (builder == null) {
            builder = requestBuilderBlocking(target);
        }
        // The consumer's announced size (buffer debloating), read once per buffer: records keep their bytes, only
        // where buffers are cut changes, and a record spans buffers as at any other size.
        int bufferSize = subpartition.bufferSize();
        if (bufferSize < builder.getMaxCapacity()) {
            builder.trim(bufferSize);
        }
        // Ownership: the consumer goes to the subpartition (which closes it on failure); the builder stays here
        // until finishBuilder or release closes it.
        if (subpartition.add(builder.createBufferConsumerFromBeginning(), false) < 0) {
            builder.close();
            checkNotReleased();
            return null;
        }
        builders[target] = builder;
        return builder;
    }

    private BufferBuilder requestBuilderBlocking(int target) throws IOException {
        long start = counters.beginWait();
        try {
            return bufferPool.requestBufferBuilderBlocking(target);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException ex = new InterruptedIOException("interrupted while waiting for a buffer of partition "
                    + partitionId + " (subpartition " + target + ")");
            ex.initCause(e);
            throw ex;
        } catch (BufferPoolDestroyedException e) {
            throw releasedException(e);
        } finally {
            counters.endWait(start);
        }
    }

    private void checkNotReleased() throws ShuffleException {
        if (state == State.RELEASED) {
            throw releasedException(null);
        }
    }

    private void finishBuilder(int target) {
        BufferBuilder builder = builders[target];
        if (builder != null) {
            if (BufferTrace.ENABLED) {
                BufferTrace.committed(builder);
            }
            int bytes = builder.finish();
            countBuffer(bytes);
            dataBytesWritten[target] += bytes;
            builder.close();
            builders[target] = null;
            subpartitions[target].onTailFinished();
        }
    }

    @Override
    public String toString() {
        return "partition " + partitionId + " of " + ownerName + " (" + subpartitions.length + " subpartitions, "
                + state + ")";
    }
}
