package io.sluice.netty.gate;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.GateMetrics;
import io.sluice.api.InFlightDataSink;
import io.sluice.api.InputGate;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.netty.config.DebloatSettings;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.metrics.GateCounters;
import io.sluice.netty.notification.AvailabilityHandOff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A consumer's gate over one channel per producer partition: local channels for producers in this environment,
 * remote ones for the others.
 *
 * <p>Channels that have something to read queue themselves in {@code channelsWithData} (each at most once) and the
 * consumer takes them round-robin, so no channel starves the others and nobody polls an idle channel. The
 * availability future completes when the queue turns non-empty, and when the gate finishes or closes.
 *
 * <p>Priority events: a channel that announces one ({@link #notifyPriorityEvent}) goes to the head of the queue and
 * counts it in {@code pendingPriorityEvents}; it stays in front until the consumer took all of its priority events
 * (a channel hands out its priority events before anything else). So the channels at the head of the queue are
 * exactly those with priority events waiting, and while {@link #priorityEventAvailableFuture()} is done the next
 * poll returns a priority event, which Flink's checkpointed gate relies on. A channel announces each priority event
 * it hands out exactly once, after it holds it, so the consumer may take one before its announcement arrives: that
 * take is remembered in {@code priorityEventsTakenAhead} and the late announcement then counts nothing.
 *
 * <p>Waiting: {@link #getNext()} parks on {@code lock} until a channel is queued. With a spin wait
 * ({@code shuffle.input.spin-wait}) it first spins up to that long on {@code dataSignals}, a counter that every
 * queueing of a first channel, the gate's end and its close bump, so data arriving meanwhile is taken without a
 * wake-up of the consumer thread (on a VM that wake-up costs the notifying event loop a system call and the consumer
 * tens of microseconds). A wait that lasted more than eight spins makes the next one park at once, so a consumer
 * whose stream is idle stops spinning after one wait, and its first short wait turns spinning on again.
 *
 * <p>Buffer debloating ({@code shuffle.debloat.enabled}): the gate also keeps the time its consumer found it empty,
 * from the poll that found nothing to the queueing of the next channel (two clock reads per such gap, under
 * {@code lock}, which both places hold anyway; none per buffer, none at all with debloating off), and
 * {@link #triggerDebloating()} turns that and the bytes taken into a buffer size ({@link BufferDebloater}) that
 * it announces to every channel's producer. {@link #setup()} announces the starting size before the partitions are
 * requested, so that the producers cut no whole segments for a gate that has not measured yet.
 *
 * <p>Data in flight for checkpoints: between {@link #startPersisting} and {@link #stopPersisting()} each channel's
 * {@link ChannelPersister} hands the sink the channel's data before its ending event. While none is started, the
 * data path reads one field per buffer ({@code persistSink}). Recovered elements ({@link #addRecovered}) wait in one
 * queue of the gate, handed out in the order they came before anything of any channel, also before setup.
 *
 * <p>Threads: {@link #pollNext()}, {@link #getNext()}, {@link #setup()}, {@link #startPersisting} and
 * {@link #stopPersisting()} by one consumer thread; {@link #addRecovered} by any thread;
 * {@link #notifyChannelNonEmpty} by producer, event-loop or timer threads; {@link #close()},
 * {@link #isFinished()}, {@link #availableFuture()} and the wake-up futures by any thread. The gate never calls a
 * channel while holding {@code lock}, and completes its futures outside it.
 */
public final class SingleInputGate implements InputGate {

    private static final Logger LOG = LoggerFactory.getLogger(SingleInputGate.class);

    private final String ownerName;
    private final InputChannel[] channels;
    private final Consumer<SingleInputGate> onClose;
    private final AvailabilityHandOff availabilityHandOff;
    private final AvailabilityHandOff priorityHandOff;

    private final Object lock = new Object();
    @GuardedBy("lock")
    private final ArrayDeque<InputChannel> channelsWithData;
    @GuardedBy("lock")
    private final boolean[] queued;
    @GuardedBy("lock")
    private final boolean[] channelFinished;
    @GuardedBy("lock")
    private int finishedChannels;
    /** Priority events each channel announced and the consumer has not taken yet. */
    @GuardedBy("lock")
    private final int[] pendingPriorityEvents;
    /** Priority events the consumer took from each channel before the channel announced them. */
    @GuardedBy("lock")
    private final int[] priorityEventsTakenAhead;
    @GuardedBy("lock")
    private int totalPendingPriorityEvents;
    @GuardedBy("lock")
    private CompletableFuture<Void> priorityAvailability = new CompletableFuture<>();
    @GuardedBy("lock")
    private CompletableFuture<Void> availability = new CompletableFuture<>();
    @GuardedBy("lock")
    private GateState state = GateState.CREATED;
    private volatile boolean finished;
    @GuardedBy("lock")
    private GateMemory memory = GateMemory.NONE;
    /**
     * Recovered elements not handed out yet, in the order they were added; owned by the gate until handed out or
     * recycled on close.
     */
    @GuardedBy("lock")
    private final ArrayDeque<BufferOrEvent> recovered = new ArrayDeque<>();
    /** The recovered element {@link #takeChannelWithData()} took for {@link #pollNext()}. Consumer thread. */
    private BufferOrEvent takenRecovered;
    /** The predicate of the persisting started last, or null. Consumer thread. */
    private Predicate<ByteBuffer> endsPersisting;
    /** The sink of the persisting started last, or null when none is started. Consumer thread. */
    private InFlightDataSink persistSink;
    /**
     * A wait longer than this many spins makes the next wait park at once: the stream is idle, not busy. Eight, so
     * that a busy stream whose gaps are a little longer than the spin still spins (a spin that runs out costs at
     * most an eighth of such a wait) while an idle one stops spinning after one wait.
     */
    private static final long LONG_WAIT_SPINS = 8;

    /** Bytes and buffers the consumer took, and its waits for data, for {@link #metrics()}. */
    private final GateCounters counters = new GateCounters();
    /**
     * Bumped (under {@code lock}) whenever a waiting consumer has something new to look at: the first channel
     * queued, the gate finished, the gate closed. A spinning consumer watches it instead of taking {@code lock}.
     */
    private volatile int dataSignals;
    /** Longest spin of {@link #getNext()} before it parks, in nanoseconds; 0 never spins. */
    private final long spinWaitNanos;
    /** How long the consumer's last wait for data took, spin and park together. Consumer thread. */
    private long lastWaitNanos;
    /** Spins that ended with something to poll, and spins that ran out and parked. Consumer thread. */
    private long spinHits;
    private long spinMisses;

    /** The buffer size calculation, or null with debloating off (then no idle time is kept either). */
    private final BufferDebloater debloater;
    /** Serialises {@link #triggerDebloating()}: an engine's calls and the environment's timer. */
    private final Object debloatLock = new Object();
    /** The size announced last, for {@link #debloatedBufferSize()}; 0 before the setup's announcement. */
    private volatile int debloatedBufferSize;
    /**
     * When the consumer last found the gate empty ({@link System#nanoTime()}, never 0), or 0 while it is not
     * waiting for data; debloating only.
     */
    @GuardedBy("lock")
    private long idleSince;
    /** Time the consumer found the gate empty before {@link #idleSince}, in total; debloating only. */
    @GuardedBy("lock")
    private long idleNanos;

    /**
     * @param channelCount  the number of channels; fill them with {@link #setChannel} before {@link #setup()}
     * @param onClose       told once when the gate closes (the environment forgets it)
     * @param notifications completes the availability futures the consumer sees (the environment's notification
     *                      thread; {@code Runnable::run} completes them on the notifying thread)
     */
    public SingleInputGate(String ownerName, int channelCount, Consumer<SingleInputGate> onClose,
                           Executor notifications) {
        this(ownerName, channelCount, onClose, notifications, 0);
    }

    /**
     * Like {@link #SingleInputGate(String, int, Consumer, Executor)}, with a spin wait.
     *
     * @param spinWaitNanos how long {@link #getNext()} spins for data before it parks ({@code
     *                      shuffle.input.spin-wait}); 0 parks at once
     */
    public SingleInputGate(String ownerName, int channelCount, Consumer<SingleInputGate> onClose,
                           Executor notifications, long spinWaitNanos) {
        this(ownerName, channelCount, onClose, notifications, spinWaitNanos, DebloatSettings.OFF, 0);
    }

    /**
     * Like {@link #SingleInputGate(String, int, Consumer, Executor, long)}, with buffer debloating.
     *
     * @param debloat     the environment's debloating options; with {@code enabled} false the gate keeps no idle
     *                    time and {@link #triggerDebloating()} does nothing
     * @param segmentSize the largest buffer size the gate announces: a segment
     */
    public SingleInputGate(String ownerName, int channelCount, Consumer<SingleInputGate> onClose,
                           Executor notifications, long spinWaitNanos, DebloatSettings debloat, int segmentSize) {
        this.debloater = debloat.enabled() ? new BufferDebloater(debloat, segmentSize) : null;
        if (spinWaitNanos < 0) {
            throw new IllegalArgumentException("spin wait of gate of " + ownerName + " is negative: "
                    + spinWaitNanos + " ns");
        }
        this.spinWaitNanos = spinWaitNanos;
        this.availabilityHandOff = new AvailabilityHandOff(notifications);
        this.priorityHandOff = new AvailabilityHandOff(notifications);
        this.pendingPriorityEvents = new int[channelCount];
        this.priorityEventsTakenAhead = new int[channelCount];
        this.ownerName = ownerName;
        this.channels = new InputChannel[channelCount];
        this.channelsWithData = new ArrayDeque<>(Math.max(1, channelCount));
        this.queued = new boolean[channelCount];
        this.channelFinished = new boolean[channelCount];
        this.onClose = onClose;
        if (channelCount == 0) {
            finished = true;
            availability.complete(null);
        }
    }

    /** Puts the channel of index {@code channel.channelIndex()}; before {@link #setup()}. */
    public void setChannel(InputChannel channel) {
        channels[channel.channelIndex()] = channel;
    }

    /** The channel at {@code index}. */
    public InputChannel channel(int index) {
        return channels[index];
    }

    /** The engine's name for the gate's owner, for messages. */
    public String ownerName() {
        return ownerName;
    }

    @Override
    public int numberOfInputChannels() {
        return channels.length;
    }

    /** Sets what the gate reserves at setup beyond its channels; before {@link #setup()}. */
    void setMemory(GateMemory memory) {
        synchronized (lock) {
            this.memory = memory;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A {@link #close()} from another thread while this waits for memory ends the wait at once: this then throws
     * a {@link ShuffleException} saying the gate was closed, and nothing stays reserved. The close does not wait for
     * the reservation.
     *
     * @throws ShuffleException when the gate is closed before or during the setup
     */
    @Override
    public void setup() throws IOException {
        synchronized (lock) {
            if (state == GateState.CLOSED) {
                throw closedDuringSetup();
            }
            if (state != GateState.CREATED) {
                throw new IllegalStateException("gate of " + ownerName + " is " + state + "; setup() runs once");
            }
        }
        try {
            GateMemory reservation;
            synchronized (lock) {
                reservation = memory;
            }
            reservation.reserve();
            for (InputChannel channel : channels) {
                channel.setup();
            }
        } catch (IOException e) {
            // A failed setup leaves nothing reserved.
            releaseChannelsAndMemory();
            throw e;
        } catch (RuntimeException e) {
            releaseChannelsAndMemory();
            throw new ShuffleException("gate of " + ownerName + " cannot be set up: " + e, e);
        }
        synchronized (lock) {
            if (state == GateState.CLOSED) {
                // Closed while the channels were set up: close() released them and the memory.
                throw closedDuringSetup();
            }
            state = GateState.SET_UP;
        }
        announceStartingBufferSize();
        for (InputChannel channel : channels) {
            try {
                channel.requestSubpartition();
            } catch (RuntimeException e) {
                // Like any failed request: the channel fails, and its consumer learns of it at its next read.
                channel.setError(new ShuffleException(channel.describe() + " cannot request its partition: " + e, e));
            }
        }
        LOG.debug("Gate of {} set up with {} channels", ownerName, channels.length);
    }

    /**
     * With debloating, tells every channel the starting size before its request, which takes it along (a remote
     * channel sends it right after its partition request, a local one hands it to the subpartition it reads).
     */
    private void announceStartingBufferSize() {
        if (debloater == null) {
            return;
        }
        synchronized (debloatLock) {
            int size = debloater.announcedSize();
            debloatedBufferSize = size;
            announceToChannels(size);
        }
    }

    private ShuffleException closedDuringSetup() {
        return closedDuringSetup(ownerName);
    }

    /** What {@link #setup()} throws when the gate of {@code ownerName} is closed before or during it. */
    static ShuffleException closedDuringSetup(String ownerName) {
        return new ShuffleException("gate of " + ownerName + " was closed during its setup(); it reserves nothing");
    }

    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException {
        while (true) {
            InputChannel channel = takeChannelWithData();
            if (channel == null) {
                return takeRecovered();
            }
            BufferAndAvailability next;
            try {
                next = channel.getNextBuffer();
            } catch (IOException e) {
                // Keep a failed channel queued: every later read reports the failure too, none hangs.
                queueChannel(channel, false);
                throw e;
            } catch (RuntimeException e) {
                // A bug of the channel or of its source: the channel fails, and the consumer gets the API's type.
                throw failChannel(channel, new ShuffleException(channel.describe() + " failed: " + e, e));
            }
            if (next == null) {
                // A notification that found nothing new (e.g. data already taken): the channel waits for the next.
                continue;
            }
            // Back to the head while it has more priority events (queueChannel sees to that).
            if ((next.priority() && priorityEventTaken(channel)) || next.moreAvailable()) {
                queueChannel(channel, false);
            }
            Buffer buffer = next.buffer();
            if (next.announcement() >= 0) {
                // Not an element of the channel's stream (its event comes in its place, or moved): neither counted
                // as taken nor seen by persisting.
                return Optional.of(new ShuffleBufferOrEvent(channel.channelIndex(), buffer, true, next.announcement()));
            }
            if (buffer.isBuffer()) {
                channel.onDataTaken(buffer.readableBytes());
                if (persistSink != null) {
                    persistTakenData(channel, buffer);
                }
            } else if (eventType(channel, buffer) == EventSerializer.EventType.END_OF_PARTITION) {
                try {
                    checkEveryDataByteArrived(channel, buffer);
                } finally {
                    buffer.recycleBuffer();
                }
                onEndOfPartition(channel);
                if (finished) {
                    return Optional.empty();
                }
                continue;
            } else {
                persistOnEventTaken(channel, buffer, next.priority());
            }
            counters.onTaken(buffer.readableBytes(), buffer.isBuffer());
            return Optional.of(new ShuffleBufferOrEvent(channel.channelIndex(), buffer, next.priority()));
        }
    }

    /**
     * The recovered element {@link #takeChannelWithData()} took, counted as taken, or empty when it took none.
     * Consumer thread.
     */
    private Optional<BufferOrEvent> takeRecovered() {
        BufferOrEvent element = takenRecovered;
        if (element == null) {
            return Optional.empty();
        }
        takenRecovered = null;
        counters.onTaken(element.data().remaining(), !element.isEvent());
        return Optional.of(element);
    }

    /**
     * Hands a data buffer the consumer is about to get to the sink when its channel persists it. A sink that
     * throws fails the channel (the buffer is recycled, never handed out): its stream is no longer whole. Consumer
     * thread.
     */
    private void persistTakenData(InputChannel channel, Buffer buffer) throws ShuffleException {
        ChannelPersister persister = channel.persister();
        if (!persister.isActive()) {
            return;
        }
        try {
            persister.dataTaken(buffer, persistSink);
        } catch (RuntimeException e) {
            buffer.recycleBuffer();
            throw failChannel(channel, new ShuffleException(channel.describe() + " cannot persist a buffer in flight:"
                    + " the sink failed: " + e, e));
        }
    }

    /**
     * Lets the channel's persister see a user event the consumer is about to get (it remembers the event, and it
     * may end persisting). A predicate or sink that throws fails the channel, as in {@link #persistTakenData}.
     * Consumer thread.
     */
    private void persistOnEventTaken(InputChannel channel, Buffer event, boolean priority) throws ShuffleException {
        try {
            channel.persister().eventTaken(event, priority, endsPersisting, persistSink);
        } catch (RuntimeException e) {
            event.recycleBuffer();
            throw failChannel(channel, new ShuffleException(channel.describe() + " cannot persist its data in flight"
                    + " at an event: " + e, e));
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A remote channel hands the buffers it holds as retained slices (decompressed on receipt, so the bytes are
     * the consumer's); a local channel holds nothing it received, so it hands the data the consumer takes before
     * its ending event. The channels' locks are held only to find and retain those buffers, never while the
     * predicate or the sink runs. A sink or predicate that throws ends persisting on every channel and the
     * exception reaches the caller; what the sink got is its own.
     */
    @Override
    public void startPersisting(Predicate<ByteBuffer> endsPersisting, InFlightDataSink sink) {
        Objects.requireNonNull(endsPersisting, "endsPersisting");
        Objects.requireNonNull(sink, "sink");
        this.endsPersisting = endsPersisting;
        this.persistSink = sink;
        try {
            for (InputChannel channel : channels) {
                if (channel != null) {
                    channel.persister().start(endsPersisting, sink);
                }
            }
        } catch (RuntimeException | Error e) {
            stopPersisting();
            throw e;
        }
    }

    @Override
    public void stopPersisting() {
        endsPersisting = null;
        persistSink = null;
        for (InputChannel channel : channels) {
            if (channel != null) {
                channel.persister().stop();
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The gate keeps one queue of recovered elements for all its channels and hands them out ahead of any
     * channel's data or events, priority events included, so each channel's come before its live stream. Counted
     * in {@link #metrics()} as taken when handed out. Never persisted by {@link #startPersisting}: the engine
     * owns their source.
     *
     * @throws IllegalArgumentException for a priority element
     */
    @Override
    public void addRecovered(BufferOrEvent element) {
        Objects.requireNonNull(element, "recovered");
        channelAt(element.channelIndex());
        if (element.isPriority()) {
            throw new IllegalArgumentException("gate of " + ownerName + " cannot queue a recovered priority event for"
                    + " channel " + element.channelIndex() + ": recovered elements keep their order");
        }
        CompletableFuture<Void> toComplete = null;
        boolean closed;
        synchronized (lock) {
            closed = state == GateState.CLOSED;
            if (!closed) {
                recovered.add(element);
                if (recovered.size() == 1 && channelsWithData.isEmpty()) {
                    toComplete = somethingToTakeLocked();
                }
            }
        }
        if (closed) {
            // Ownership passed to the gate, which recycles what it will never hand out.
            recycleRecovered(List.of(element));
        } else if (toComplete != null) {
            toComplete.complete(null);
        }
    }

    /** Recycles recovered elements the gate never handed out; a failing recycle does not keep the others. */
    private void recycleRecovered(List<BufferOrEvent> elements) {
        for (BufferOrEvent element : elements) {
            try {
                element.recycle();
            } catch (RuntimeException e) {
                LOG.error("Gate of {} could not recycle the recovered element {}", ownerName, element, e);
            }
        }
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        while (true) {
            // Read before the poll: a channel queued after the poll looked changes it, so a spin cannot miss it.
            int signalsSeen = dataSignals;
            Optional<BufferOrEvent> next = pollNext();
            if (next.isPresent() || finished) {
                return next;
            }
            long start = counters.waiting().begin();
            try {
                if (lastWaitNanos / LONG_WAIT_SPINS < spinWaitNanos) { // never true without a spin wait
                    if (spinUntilSignalled(signalsSeen, start)) {
                        spinHits++;
                        continue;
                    }
                    spinMisses++;
                }
                parkUntilData();
            } finally {
                lastWaitNanos = counters.waiting().end(start);
            }
        }
    }

    /**
     * Spins until {@code dataSignals} moves from {@code signalsSeen}, {@code spinWaitNanos} have passed since
     * {@code start}, or the thread is interrupted (the park that follows then throws). Consumer thread.
     *
     * @return whether it moved (there is something to poll)
     */
    private boolean spinUntilSignalled(int signalsSeen, long start) {
        Thread consumer = Thread.currentThread();
        do {
            if (dataSignals != signalsSeen) {
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - start < spinWaitNanos && !consumer.isInterrupted());
        return dataSignals != signalsSeen;
    }

    /** Waits of {@link #getNext()} that its spin ended with something to poll. Consumer thread, or after it. */
    long spinHits() {
        return spinHits;
    }

    /** Waits of {@link #getNext()} whose spin ran out, so that it parked. Consumer thread, or after it. */
    long spinMisses() {
        return spinMisses;
    }

    /**
     * Parks the consumer thread until a channel is queued, the gate finishes or it closes. An interrupt ends the wait
     * with {@link InterruptedException} and leaves the thread's interrupt status set (the contract's choice, so that
     * code between the consumer and its task's loop cannot lose it).
     */
    private void parkUntilData() throws InterruptedException {
        synchronized (lock) {
            try {
                while (channelsWithData.isEmpty() && recovered.isEmpty() && state != GateState.CLOSED && !finished) {
                    lock.wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw e;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Threads: a future that is done when returned stays so; a pending one is completed by the environment's
     * notification thread ({@code sluice-notify-<environment>}), never by a Netty event loop or a producer thread,
     * so a continuation may call {@link #pollNext()} and do its work there.
     */
    @Override
    public CompletableFuture<?> availableFuture() {
        CompletableFuture<Void> internal;
        synchronized (lock) {
            internal = availability;
        }
        return availabilityHandOff.detach(internal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The gate's own future, the one {@link #availableFuture()} detaches: a pending one is completed outside the
     * gate's lock by the thread that queues the first channel with data (a Netty event loop for a remote channel, the
     * producer's or the flush timer's thread for a local one), by the consumer that reads the last end of partition,
     * or by the thread that closes the gate. The gate itself hangs nothing on it but that hand-off, which only submits
     * a task to the notification executor.
     */
    @Override
    public CompletableFuture<?> wakeUpFuture() {
        synchronized (lock) {
            return availability;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The gate's own priority future, completed outside the gate's lock by the thread that announces the first
     * pending priority event, or by the thread that closes the gate.
     */
    @Override
    public CompletableFuture<?> priorityEventWakeUpFuture() {
        synchronized (lock) {
            return priorityAvailability;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Threads: as {@link #availableFuture()}.
     */
    @Override
    public CompletableFuture<?> priorityEventAvailableFuture() {
        CompletableFuture<Void> internal;
        synchronized (lock) {
            internal = priorityAvailability;
        }
        return priorityHandOff.detach(internal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads the counters without a lock and each channel's queue and buffers under the channel's locks for a
     * moment; takes the gate's lock only to find its floating pool (the consumer never holds it while it waits).
     */
    @Override
    public GateMetrics metrics() {
        int queuedBuffers = 0;
        int exclusiveInUse = 0;
        int exclusive = 0;
        int floatingHeldFree = 0;
        for (InputChannel channel : channels) {
            if (channel != null) {
                queuedBuffers += channel.queuedBuffers();
                exclusiveInUse += channel.exclusiveBuffersInUse();
                exclusive += channel.exclusiveSegmentsRequired();
                floatingHeldFree += channel.floatingBuffersHeldFree();
            }
        }
        GateMemory reserved;
        synchronized (lock) {
            reserved = memory;
        }
        LocalBufferPool floatingPool = reserved.floatingPool();
        boolean live = floatingPool != null && !floatingPool.isDestroyed();
        int floating = live ? floatingPool.getNumBuffers() : 0;
        // Borrowed buffers a channel holds free for the next data are not in use yet.
        int floatingInUse = live ? Math.max(0, floatingPool.bestEffortGetNumOfUsedBuffers() - floatingHeldFree) : 0;
        long now = System.nanoTime();
        return new GateMetrics(ownerName, now, channels.length, counters.bytesIn(), counters.buffersIn(),
                queuedBuffers, exclusiveInUse, exclusive, floatingInUse, floating, counters.waiting().totalNanos(now));
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Samples the bytes taken ({@code bytesIn} of {@link #metrics()}), the idle time and every channel's buffers
     * in flight, and announces a new size to every channel: a remote channel sends it to its producer (a small
     * message, like credit), a local one hands it to its producer's subpartition directly; a channel not connected
     * yet announces it with its request. Calls are serialised; each takes a lock of each channel for a moment, never
     * one the consumer holds while it waits.
     */
    @Override
    public void triggerDebloating() {
        if (debloater == null) {
            return;
        }
        synchronized (debloatLock) {
            long now = System.nanoTime();
            long idle;
            synchronized (lock) {
                if (state != GateState.SET_UP || finished) {
                    return;
                }
                idle = idleNanos + (idleSince == 0 ? 0 : Math.max(0, now - idleSince));
            }
            int buffersInUse = 0;
            try {
                for (InputChannel channel : channels) {
                    buffersInUse += channel.buffersInUse();
                }
            } catch (RuntimeException e) {
                // A bug of a channel: this sample is skipped, the engine's thread that triggered it is not failed.
                LOG.warn("Gate of {} skips a buffer size calculation: a channel failed to report its buffers",
                        ownerName, e);
                return;
            }
            int size = debloater.recalculate(now, counters.bytesIn(), idle, buffersInUse);
            if (size == BufferDebloater.NO_CHANGE) {
                return;
            }
            LOG.debug("Gate of {} announces buffers of {} bytes (throughput {} bytes/s, {} buffers in flight)",
                    ownerName, size, debloater.throughput(), buffersInUse);
            debloatedBufferSize = size;
            announceToChannels(size);
        }
    }

    @GuardedBy("debloatLock")
    private void announceToChannels(int size) {
        for (InputChannel channel : channels) {
            try {
                channel.announceBufferSize(size);
            } catch (RuntimeException e) {
                // A bug of one channel must not keep the size from the others; its consumer learns of it.
                channel.setError(new ShuffleException(channel.describe() + " cannot announce a buffer size of "
                        + size + " bytes: " + e, e));
            }
        }
    }

    @Override
    public int debloatedBufferSize() {
        return debloatedBufferSize;
    }

    /** {@link System#nanoTime()}, moved off 0, which marks "not idle". */
    private static long nonZeroNanoTime() {
        long now = System.nanoTime();
        return now == 0 ? 1 : now;
    }

    @Override
    public void sendTaskEvent(ByteBuffer event) throws IOException {
        try {
            EventSerializer.checkEventSize(event, "task event of " + ownerName);
        } catch (IllegalArgumentException e) {
            throw new ShuffleException(e.getMessage(), e);
        }
        checkOpen("send a task event");
        for (InputChannel channel : channels) {
            sendTaskEvent(channel, event);
        }
    }

    @Override
    public void sendTaskEvent(int channelIndex, ByteBuffer event) throws IOException {
        InputChannel channel = channelAt(channelIndex);
        checkOpen("send a task event");
        sendTaskEvent(channel, event);
    }

    /**
     * A closed gate sends and resumes nothing: the caller learns so, as it would from a read, instead of an event
     * that silently goes nowhere. Consumer thread.
     *
     * @throws ShuffleException naming the gate, once it is closed
     */
    private void checkOpen(String what) throws ShuffleException {
        synchronized (lock) {
            if (state == GateState.CLOSED) {
                throw new ShuffleException("gate of " + ownerName + " is closed: cannot " + what);
            }
        }
    }

    /** A copy of {@code event} to the channel's producer; an unchecked failure (an engine's listener) as the API's. */
    private static void sendTaskEvent(InputChannel channel, ByteBuffer event) throws IOException {
        try {
            channel.sendTaskEvent(event.duplicate());
        } catch (RuntimeException e) {
            throw new ShuffleException(channel.describe() + " cannot send a task event: " + e, e);
        }
    }

    @Override
    public void resumeConsumption(int channelIndex) throws IOException {
        InputChannel channel = channelAt(channelIndex);
        checkOpen("resume consumption");
        try {
            channel.resumeConsumption();
        } catch (RuntimeException e) {
            throw new ShuffleException(channel.describe() + " cannot resume consumption: " + e, e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Only a remote channel announces events: it moves the event's bytes to its priority elements (behind any it
     * holds already, ahead of all its data) and the gate counts one more priority element of the channel, as for a
     * priority event received, so the priority future completes and the channel leads the queue. The moved event keeps
     * its place for persisting: the data it overtook in the channel goes to the sink when the consumer takes the event,
     * or at {@link #startPersisting} while the channel still holds it. A local channel's producer moves an event in its
     * own subpartition; here it returns false. An announcement is always handed out before its event (a channel hands
     * out priority elements first); when the consumer took the event in its place before calling this, it returns
     * false, and an engine treats such an announcement as done.
     */
    @Override
    public boolean prioritizeAnnounced(int channelIndex, int sequenceNumber) {
        InputChannel channel = channelAt(channelIndex);
        if (!channel.prioritizeAnnounced(sequenceNumber)) {
            return false;
        }
        notifyPriorityEvent(channel);
        return true;
    }

    private InputChannel channelAt(int channelIndex) {
        if (channelIndex < 0 || channelIndex >= channels.length) {
            throw new IndexOutOfBoundsException("gate of " + ownerName() + " has " + channels.length
                    + " channels; channel " + channelIndex + " does not exist");
        }
        return channels[channelIndex];
    }

    @Override
    public void close() {
        CompletableFuture<Void> toComplete;
        CompletableFuture<Void> toCompletePriority;
        List<BufferOrEvent> neverHandedOut;
        synchronized (lock) {
            if (state == GateState.CLOSED) {
                return;
            }
            state = GateState.CLOSED;
            dataSignals++;
            channelsWithData.clear();
            neverHandedOut = new ArrayList<>(recovered);
            recovered.clear();
            toComplete = availability;
            toCompletePriority = priorityAvailability;
            lock.notifyAll();
        }
        releaseChannelsAndMemory();
        recycleRecovered(neverHandedOut);
        toComplete.complete(null);
        toCompletePriority.complete(null);
        onClose.accept(this);
        if (spinWaitNanos > 0) {
            // Read from the closing thread: a figure for tuning shuffle.input.spin-wait, not an exact count.
            LOG.debug("Closed gate of {}; its consumer's spins found data {} times and ran out {} times", ownerName,
                    spinHits, spinMisses);
        } else {
            LOG.debug("Closed gate of {}", ownerName);
        }
    }

    /**
     * Queues a channel that has something to read (or a failure to report). Any thread; ignored after the
     * channel's end of partition and after close.
     */
    void notifyChannelNonEmpty(InputChannel channel) {
        queueChannel(channel, false);
    }

    /**
     * Like {@link #notifyChannelNonEmpty}, but the channel goes to the head of the queue and one more priority event
     * is counted for it; call exactly once per priority event the channel hands out, after it holds it. An
     * announcement of an event the consumer already took counts nothing. Any thread.
     */
    void notifyPriorityEvent(InputChannel channel) {
        CompletableFuture<Void> toCompletePriority = null;
        CompletableFuture<Void> toComplete;
        synchronized (lock) {
            int index = channel.channelIndex();
            if (state == GateState.CLOSED || channelFinished[index]) {
                return;
            }
            if (priorityEventsTakenAhead[index] > 0) {
                // The channel handed this event out between holding it and announcing it: nothing waits for it, and
                // the take itself re-queued the channel if it had more.
                priorityEventsTakenAhead[index]--;
                return;
            }
            pendingPriorityEvents[index]++;
            if (totalPendingPriorityEvents++ == 0) {
                toCompletePriority = priorityAvailability;
            }
            // Queued in the same critical section: whoever sees the future done finds the channel at the head.
            toComplete = queueChannelLocked(channel, true);
        }
        if (toComplete != null) {
            toComplete.complete(null);
        }
        if (toCompletePriority != null) {
            toCompletePriority.complete(null);
        }
    }

    /**
     * Counts one priority event of {@code channel} as taken; once none is left in the gate, the priority future is
     * renewed. One the channel has not announced yet is remembered, so that its announcement counts nothing.
     * Consumer thread.
     *
     * @return whether the channel has more announced priority events
     */
    private boolean priorityEventTaken(InputChannel channel) {
        synchronized (lock) {
            int index = channel.channelIndex();
            if (pendingPriorityEvents[index] > 0) {
                if (--pendingPriorityEvents[index] == 0 && queued[index]) {
                    // Queued first by an announcement that came while the consumer took this very event: back behind
                    // the channels whose priority events still wait, which must lead the queue.
                    channelsWithData.remove(channel);
                    channelsWithData.addLast(channel);
                }
                // Renewed even while pending: the announcer completes the future after leaving the lock, possibly
                // after this take, and the gate's current future must not then be done with nothing to take.
                if (--totalPendingPriorityEvents == 0 && state != GateState.CLOSED) {
                    priorityAvailability = new CompletableFuture<>();
                }
            } else {
                priorityEventsTakenAhead[index]++;
            }
            return pendingPriorityEvents[index] > 0;
        }
    }

    /**
     * Queues {@code channel}, at the head when {@code first} or when it has priority events waiting (so that the
     * channels with priority events always lead the queue); any thread.
     */
    private void queueChannel(InputChannel channel, boolean first) {
        CompletableFuture<Void> toComplete;
        synchronized (lock) {
            toComplete = queueChannelLocked(channel, first);
        }
        if (toComplete != null) {
            toComplete.complete(null);
        }
    }

    /** @return the availability future to complete (outside {@code lock}), or null */
    @GuardedBy("lock")
    private CompletableFuture<Void> queueChannelLocked(InputChannel channel, boolean first) {
        int index = channel.channelIndex();
        if (state == GateState.CLOSED || channelFinished[index]) {
            return null;
        }
        first |= pendingPriorityEvents[index] > 0;
        if (queued[index]) {
            if (first) {
                channelsWithData.remove(channel);
                channelsWithData.addFirst(channel);
            }
            return null;
        }
        queued[index] = true;
        if (first) {
            channelsWithData.addFirst(channel);
        } else {
            channelsWithData.addLast(channel);
        }
        if (channelsWithData.size() == 1) {
            return somethingToTakeLocked();
        }
        return null;
    }

    /**
     * The gate went from nothing to take to something: ends an idle gap, wakes a waiting consumer.
     *
     * @return the availability future to complete (outside {@code lock})
     */
    @GuardedBy("lock")
    private CompletableFuture<Void> somethingToTakeLocked() {
        if (idleSince != 0) { // only with debloating
            idleNanos += System.nanoTime() - idleSince;
            idleSince = 0;
        }
        dataSignals++; // under lock: the only writer
        lock.notifyAll();
        return availability;
    }

    /**
     * The next channel to read, or null; a recovered element goes first: then it is left in
     * {@link #takenRecovered} and this returns null. Consumer thread.
     */
    private InputChannel takeChannelWithData() throws ShuffleException {
        synchronized (lock) {
            if (state == GateState.CLOSED) {
                // Closed by another thread (a consumer waiting in getNext() wakes here) or before this read.
                throw new ShuffleException("gate of " + ownerName + " is closed");
            }
            if (!recovered.isEmpty()) {
                takenRecovered = recovered.poll();
                return null;
            }
            InputChannel channel = channelsWithData.poll();
            if (channel == null) {
                if (availability.isDone() && !finished) {
                    availability = new CompletableFuture<>();
                }
                if (debloater != null && idleSince == 0) {
                    idleSince = nonZeroNanoTime();
                }
                return null;
            }
            queued[channel.channelIndex()] = false;
            return channel;
        }
    }

    /**
     * Compares the data bytes the producer says it wrote to the channel's subpartition with those this gate took
     * from the channel, and the data buffers where the end counts them too (a blocking partition's, from its index).
     * A mismatch fails the channel (this read and every later one) instead of letting its stream end early or late.
     * An end without a count (of a peer that sends none) is not checked. Consumer thread.
     *
     * @throws ShuffleException on a mismatch, or an end-of-partition event whose payload is malformed
     */
    private void checkEveryDataByteArrived(InputChannel channel, Buffer endOfPartition) throws ShuffleException {
        long written;
        long writtenBuffers;
        try {
            written = EventSerializer.dataBytesOf(endOfPartition);
            writtenBuffers = EventSerializer.dataBuffersOf(endOfPartition);
        } catch (IllegalArgumentException e) {
            throw failChannel(channel, new ShuffleException("channel " + channel.channelIndex() + " of " + ownerName
                    + " (partition " + channel.partitionId() + ") received a corrupt end of partition: "
                    + e.getMessage()));
        }
        long taken = channel.dataBytesTaken();
        if (written >= 0 && written != taken) {
            throw failChannel(channel, new ShuffleException("channel " + channel.channelIndex() + " of " + ownerName
                    + " (partition " + channel.partitionId() + ", subpartition " + channel.subpartitionIndex
                    + ") reached the end of its partition after " + taken + " data bytes, but the producer wrote "
                    + written + ": " + Math.abs(written - taken) + " bytes were " + (taken < written ? "lost" : "added")
                    + " between the producer's buffers and this gate"));
        }
        long takenBuffers = channel.dataBuffersTaken();
        if (writtenBuffers >= 0 && writtenBuffers != takenBuffers) {
            throw failChannel(channel, new ShuffleException("channel " + channel.channelIndex() + " of " + ownerName
                    + " (partition " + channel.partitionId() + ", subpartition " + channel.subpartitionIndex
                    + ") reached the end of its partition after " + takenBuffers + " data buffers, but the producer"
                    + " stored " + writtenBuffers + ": buffers were " + (takenBuffers < writtenBuffers ? "lost"
                    : "added") + " between the producer's files and this gate"));
        }
    }

    /** Records {@code failure} on the channel, which stays queued so every later read reports it; returns it. */
    private ShuffleException failChannel(InputChannel channel, ShuffleException failure) {
        channel.setError(failure);
        return failure;
    }

    /**
     * The type of an event a channel handed out. A transport checks the events it decodes, but an in-process
     * channel hands out what its source made, and a blocking partition's source is a file: a corrupt one can say
     * "event" where a writer stored data. Such an event fails its channel (recycled here, never handed out).
     * Consumer thread.
     *
     * @throws ShuffleException naming the channel, when the event carries no type this library writes
     */
    private EventSerializer.EventType eventType(InputChannel channel, Buffer event) throws ShuffleException {
        try {
            return EventSerializer.typeOf(event);
        } catch (IllegalArgumentException e) {
            event.recycleBuffer();
            throw failChannel(channel, new ShuffleException(channel.describe() + " received a corrupt event: "
                    + e.getMessage(), e));
        }
    }

    private void onEndOfPartition(InputChannel channel) {
        CompletableFuture<Void> toComplete = null;
        synchronized (lock) {
            int index = channel.channelIndex();
            if (channelFinished[index]) {
                return;
            }
            channelFinished[index] = true;
            if (queued[index]) {
                queued[index] = false;
                channelsWithData.remove(channel);
            }
            finishedChannels++;
            if (finishedChannels == channels.length) {
                finished = true;
                dataSignals++;
                toComplete = availability;
                lock.notifyAll();
            }
        }
        // The subpartition was read to its end: let the producer side release it.
        release(channel);
        if (toComplete != null) {
            toComplete.complete(null);
        }
    }

    /**
     * Releases a channel. A release that fails (a bug) is logged: it must not keep the gate's other channels or its
     * memory from being released, nor turn a read that reached the end into a failure. Never throws.
     */
    private static void release(InputChannel channel) {
        try {
            channel.releaseAllResources();
        } catch (RuntimeException e) {
            LOG.error("Releasing {} failed", channel.describe(), e);
        }
    }

    /** Releases every channel, then the gate's memory. */
    private void releaseChannelsAndMemory() {
        for (InputChannel channel : channels) {
            if (channel != null) {
                release(channel);
            }
        }
        GateMemory reserved;
        synchronized (lock) {
            reserved = memory;
            memory = GateMemory.NONE;
        }
        reserved.release();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The channel's index, the gate's owner, the partition and subpartition it reads, and a remote channel's
     * producer and its address.
     */
    @Override
    public String describeChannel(int channelIndex) {
        InputChannel channel = channelIndex >= 0 && channelIndex < channels.length ? channels[channelIndex] : null;
        return channel == null ? "channel " + channelIndex + " of " + ownerName : channel.describe();
    }

    @Override
    public String toString() {
        return "gate of " + ownerName + " (" + channels.length + " channels)";
    }
}
