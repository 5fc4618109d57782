package io.sluice.netty.gate;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.api.TransportException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferListener;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.event.EventSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * An input channel whose producer lives in another environment: it receives buffers over a shared TCP connection
 * and grants the producer credit, one credit per buffer it has room for.
 *
 * <p>Memory: {@code buffers-per-channel} exclusive buffers, owned by this channel for its whole life (their
 * recycler is this channel: a recycled exclusive buffer always comes back here), announced as initial credit; and
 * floating buffers borrowed from the gate's pool when the producer's announced backlog exceeds what the channel
 * holds (a recycled floating buffer goes back to the pool, which hands it to a waiting channel first).
 *
 * <p>Threads: {@link #onBuffer}, {@link #onEmptyBuffer}, {@link #requestBuffer()}, {@link #onFailedPartitionRequest}
 * run on the connection's event loop; {@link #getNextBuffer()} on the consumer thread; recycling and
 * {@link #notifyBufferAvailable} on whichever thread recycles; {@link #releaseAllResources()} on any thread.
 * Locks: {@code receivedLock} guards the received queues, {@code buffersLock} the available buffers, and
 * {@code requestLock} the request state; none is held while calling the gate or Netty. {@code buffersLock} is held
 * while asking the floating pool for a buffer or registering as its listener: the pool never calls a listener
 * under its own lock, so the two locks are never taken in the other order.
 *
 * <p>Announced events ({@link EventSerializer.EventType#ANNOUNCED_BLOCKING_USER_EVENT}): the event is queued in its
 * place like any blocking event, and an announcement over the same bytes joins the priority elements, so the
 * consumer learns of it ahead of the data before it; {@link #prioritizeAnnounced} can then move the event itself
 * ahead of that data. Both keep the event's place for {@link ChannelPersister}. The producer sends nothing after
 * such an event until the consumer resumes it, so an announced event is normally the last thing the channel holds.
 */
public final class RemoteInputChannel extends InputChannel implements BufferRecycler, BufferListener {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteInputChannel.class);

    private final InputChannelId id = InputChannelId.random();
    private final ConnectionId connectionId;
    /** The environment's connections to producers (the transport). */
    private final ProducerConnections connections;
    private final ScheduledExecutorService timer;
    private final NetworkBufferPool networkBufferPool;
    /** Counts one buffer of the given size received (the transport's counters). */
    private final IntConsumer bufferReceived;
    /** Exclusive buffers, announced as the initial credit. */
    private final int initialCredit;

    private volatile boolean released;

    private final Object requestLock = new Object();
    @GuardedBy("requestLock")
    private final PartitionRequestBackoff backoff;
    @GuardedBy("requestLock")
    private ProducerConnection client;
    @GuardedBy("requestLock")
    private ScheduledFuture<?> retry;

    private final Object receivedLock = new Object();
    @GuardedBy("receivedLock")
    private final ArrayDeque<Buffer> received = new ArrayDeque<>();
    /**
     * Data buffers and non-priority events ever added to {@link #received}: the next one is number
     * {@code receivedCount}, the head of the queue number {@code receivedCount - received.size()} (the places of
     * {@link ChannelPersister}).
     */
    @GuardedBy("receivedLock")
    private long receivedCount;
    /**
     * Priority elements, handed out before {@link #received}: priority events, announcements of the announced events
     * in {@link #received}, and those events once moved ahead ({@link #prioritizeAnnounced}).
     */
    @GuardedBy("receivedLock")
    private final ArrayDeque<PriorityEvent> receivedPriority = new ArrayDeque<>();
    /**
     * The announced events still in {@link #received}, in stream order. A moved one ({@link #prioritizeAnnounced})
     * stays there, keeping the places of what follows it, until it is the head of the queue: then it is dropped
     * (its moved copy is what the consumer gets), so the head of {@link #received} is never a moved event.
     */
    @GuardedBy("receivedLock")
    private final ArrayDeque<AnnouncedEvent> announcedHeld = new ArrayDeque<>();
    /** The number of the next announcement; never negative. */
    @GuardedBy("receivedLock")
    private int nextAnnouncement;
    /** The place (see {@link ChannelPersister}) of the priority event the consumer took last. Consumer thread. */
    private long lastTakenPriorityPlace;
    /** The place of the data buffer or non-priority event the consumer took last. Consumer thread. */
    private long lastTakenPlace;
    /** User events received and not yet taken by the consumer; at most ResultPartitionWriter.MAX_QUEUED_EVENTS. */
    @GuardedBy("receivedLock")
    private int queuedEvents;
    private int expectedSequenceNumber; // event loop
    private volatile boolean endOfPartitionReceived;

    private final Object buffersLock = new Object();
    @GuardedBy("buffersLock")
    private final ArrayDeque<Buffer> exclusiveAvailable = new ArrayDeque<>();
    @GuardedBy("buffersLock")
    private final ArrayDeque<Buffer> floatingAvailable = new ArrayDeque<>();
    /** Buffers the channel wants to hold: the sender's backlog plus the initial credit. */
    @GuardedBy("buffersLock")
    private int numRequiredBuffers;
    @GuardedBy("buffersLock")
    private boolean waitingForFloatingBuffers;
    @GuardedBy("buffersLock")
    private LocalBufferPool floatingPool;  // null when the gate has no floating buffers

    /** The buffer size the gate announced last, or 0: sent again after each partition request. */
    private volatile int announcedBufferSize;

    /** Credit granted locally and not yet sent to the producer in an AddCredit. */
    private final AtomicInteger unannouncedCredit = new AtomicInteger();

    /**
     * A thread that grants credit (recycling a buffer) leaves the announcement to the event loop while the producer
     * holds at least this much credit, counting the buffers on their way: the event loop announces it with the next
     * buffer it receives, and nobody is woken for it. One is enough for that buffer to come: either the producer can
     * send one, or one is on its way.
     */
    static final int DEFERRABLE_SENDER_CREDIT = 1;
    /**
     * The credit the producer holds or has spent on buffers still on their way, as far as this channel knows: the
     * initial credit, plus what the event loop announced, minus the data buffers received. Set by the partition
     * request; then changed by the event loop only. Read by granting threads after they add to
     * {@link #unannouncedCredit}, while the event loop reads {@code unannouncedCredit} after changing this: of a
     * granting thread that defers and an event loop that receives a buffer, at least one sees the other's write,
     * so deferred credit is never left behind while the producer runs out.
     */
    private final AtomicInteger senderCredit = new AtomicInteger();

    RemoteInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId, int subpartitionIndex,
                       ConnectionId connectionId, ProducerConnections connections,
                       ScheduledExecutorService timer, NetworkBufferPool networkBufferPool, IntConsumer bufferReceived,
                       int initialCredit, PartitionRequestBackoff backoff) {
        this(gate, channelIndex, partitionId, subpartitionIndex, subpartitionIndex, connectionId, connections, timer,
                networkBufferPool, bufferReceived, initialCredit, backoff);
    }

    /** A channel reading the subpartitions {@code subpartitionIndex..lastSubpartitionIndex}, one after the other. */
    RemoteInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId, int subpartitionIndex,
                       int lastSubpartitionIndex, ConnectionId connectionId, ProducerConnections connections,
                       ScheduledExecutorService timer, NetworkBufferPool networkBufferPool, IntConsumer bufferReceived,
                       int initialCredit, PartitionRequestBackoff backoff) {
        super(gate, channelIndex, partitionId, subpartitionIndex, lastSubpartitionIndex);
        this.connectionId = connectionId;
        this.connections = connections;
        this.timer = timer;
        this.networkBufferPool = networkBufferPool;
        this.bufferReceived = bufferReceived;
        this.initialCredit = initialCredit;
        this.backoff = backoff;
        this.numRequiredBuffers = initialCredit;
    }

    /** The receiver id the producer's server addresses this channel by. */
    public InputChannelId inputChannelId() {
        return id;
    }

    /** Where this channel's producer is. */
    public ConnectionId connectionId() {
        return connectionId;
    }

    @Override
    String producerDescription() {
        return ", producer " + connectionId.producerId() + " at " + connectionId.address();
    }

    @Override
    int exclusiveSegmentsRequired() {
        return initialCredit;
    }

    /**
     * Hands the channel its exclusive segments and the gate's floating pool; ownership of the segments passes to
     * the channel, which returns them to the global pool on release. A channel already released (its gate closed
     * during setup) returns them to the global pool at once and keeps nothing. Consumer thread, during gate setup.
     */
    void assignBuffers(List<MemorySegment> exclusiveSegments, LocalBufferPool gateFloatingPool) {
        synchronized (buffersLock) {
            if (!released) {
                for (MemorySegment segment : exclusiveSegments) {
                    exclusiveAvailable.add(new Buffer(segment, this));
                }
                this.floatingPool = gateFloatingPool;
                return;
            }
        }
        networkBufferPool.recycleUnpooledMemorySegments(List.copyOf(exclusiveSegments));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Requesting the subpartition
    // ------------------------------------------------------------------------------------------------------------

    @Override
    void requestSubpartition() {
        synchronized (requestLock) {
            if (released || client != null) {
                // Requested already: one request per channel (retries go through onFailedPartitionRequest). Taking
                // a second client reference and giving it back would unregister this channel from its handler.
                return;
            }
        }
        ProducerConnection requestClient;
        try {
            requestClient = connections.createPartitionRequestClient(connectionId);
        } catch (TransportException e) {
            // The factory's message names the connection; say which partition could not be requested.
            setError(new TransportException("channel " + channelIndex + " of " + gate.ownerName()
                    + " cannot request partition " + partitionId + " (subpartition " + subpartitionIndex + "): "
                    + e.getMessage(), connectionId.address(), e));
            return;
        } catch (IOException | IllegalStateException e) {
            setError(e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            setError(new ShuffleException("interrupted while connecting to " + connectionId, e));
            return;
        }
        synchronized (requestLock) {
            if (!released && client == null) {
                client = requestClient;
                requestClient = null;
            }
        }
        if (requestClient != null) {
            // Released meanwhile, or already holding a client: give this reference back.
            requestClient.close(this, false);
            return;
        }
        sendPartitionRequest();
    }

    private void sendPartitionRequest() {
        ProducerConnection current;
        synchronized (requestLock) {
            current = client;
        }
        if (current != null && !released) {
            senderCredit.set(initialCredit);
            current.requestSubpartition(partitionId, subpartitionIndex, this, initialCredit);
            int bufferSize = announcedBufferSize;
            if (bufferSize > 0) {
                // After the request on the same connection: the producer's new reader gets the size first thing.
                current.announceBufferSize(this, bufferSize);
            }
        }
    }

    /**
     * The producer's server did not find the partition: retry after the next backoff delay, or fail with
     * {@link PartitionNotFoundException} once the maximum backoff was used. Event loop.
     */
    public void onFailedPartitionRequest() {
        boolean fail = false;
        String tried;
        synchronized (requestLock) {
            if (released) {
                return;
            }
            if (backoff.increase()) {
                try {
                    retry = timer.schedule(this::sendPartitionRequest, backoff.currentMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    fail = true;
                }
            } else {
                fail = true;
            }
            // The backoff is the request lock's: describe it here, not after unlocking.
            tried = fail ? backoff.describe() : null;
        }
        if (fail) {
            setError(new PartitionNotFoundException(partitionId, "producer " + connectionId.producerId() + " at "
                    + connectionId.address() + " did not register it in time; " + tried));
        }
    }

    /**
     * A failure reported for this channel alone, or for its whole connection. Ignored once the channel has received
     * its end of partition: everything it will ever deliver is then queued here, and the producer may close the
     * connection as soon as its partition counts as consumed, before this channel's consumer has read the end. Any
     * thread.
     */
    public void onError(Throwable cause) {
        if (endOfPartitionReceived) {
            LOG.debug("{} has its whole stream; ignoring a later failure: {}", this, String.valueOf(cause));
            return;
        }
        setError(cause);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receiving (event loop)
    // ------------------------------------------------------------------------------------------------------------

    /**
     * A buffer for the decoder to write the next data buffer into, floating first (exclusive buffers are the
     * guaranteed reserve); null when the channel was released or holds none (the producer broke the credit
     * contract). Ownership passes to the caller. Event loop.
     */
    public Buffer requestBuffer() {
        synchronized (buffersLock) {
            if (released) {
                return null;
            }
            Buffer buffer = floatingAvailable.poll();
            return buffer != null ? buffer : exclusiveAvailable.poll();
        }
    }

    /**
     * A buffer arrived: data or an event ({@code buffer.isBuffer()}), and an event that overtakes the queued data
     * when {@code priority}. Ownership of {@code buffer} passes to this channel (queued, or recycled at once
     * when the channel was released or the sequence number is wrong). Event loop.
     */
    public void onBuffer(Buffer buffer, int sequenceNumber, int backlog, boolean priority) {
        if (receive(buffer, sequenceNumber, backlog, priority)) {
            notifyChannelNonEmpty();
        }
    }

    /**
     * {@link #onBuffer}, except that the gate is not told when this buffer made the channel non-empty: then it
     * returns true and the caller must call {@link #notifyChannelNonEmpty()} soon, with no lock held. The connection's
     * handler does so once its read has decoded everything the socket had, so that a consumer that drains faster
     * than buffers arrive is woken once per read rather than once per buffer (every wake-up is a system call on
     * both threads). Priority events, announcements and failures still tell the gate at once. Event loop.
     */
    public boolean receive(Buffer buffer, int sequenceNumber, int backlog, boolean priority) {
        boolean recycle = false;
        boolean tooManyEvents = false;
        boolean notify = false;
        boolean userEvent = !buffer.isBuffer() && (priority || !EventSerializer.isEndOfPartition(buffer));
        // A transport hands over only events of known types: typeOf does not throw here.
        boolean announced = userEvent && !priority
                && EventSerializer.typeOf(buffer) == EventSerializer.EventType.ANNOUNCED_BLOCKING_USER_EVENT;
        int expected = expectedSequenceNumber;
        synchronized (receivedLock) {
            if (released) {
                recycle = true;
            } else if (sequenceNumber != expected) {
                recycle = true;
            } else if (userEvent && queuedEvents >= ResultPartitionWriter.MAX_QUEUED_EVENTS) {
                // Events come without credit: the bound is what keeps a consumer that ignores them from piling up
                // heap without end.
                recycle = true;
                tooManyEvents = true;
            } else {
                if (userEvent) {
                    queuedEvents++;
                }
                expectedSequenceNumber = expected + 1;
                if (priority) {
                    receivedPriority.add(new PriorityEvent(buffer, 2 * receivedCount, -1));
                    notify = true;
                } else {
                    received.add(buffer);
                    if (announced) {
                        announceLocked(buffer);
                    }
                    receivedCount++;
                    notify = received.size() + receivedPriority.size() == 1;
                }
            }
        }
        if (recycle) {
            buffer.recycleBuffer();
            if (tooManyEvents) {
                setError(new ShuffleException("channel " + channelIndex + " of " + gate.ownerName() + " holds "
                        + ResultPartitionWriter.MAX_QUEUED_EVENTS + " events from producer "
                        + connectionId.producerId() + " that its consumer has not read, the limit "
                        + "(ResultPartitionWriter.MAX_QUEUED_EVENTS): the consumer is not reading events"));
            } else if (!released) {
                setError(new ShuffleException("channel " + channelIndex + " of " + gate.ownerName()
                        + " lost data from producer " + connectionId.producerId() + " at " + connectionId.address()
                        + ": expected buffer " + expected + " but received " + sequenceNumber));
            }
            return false;
        }
        if (buffer.isBuffer()) {
            senderCredit.decrementAndGet();
        }
        bufferReceived.accept(buffer.readableBytes());
        if (BufferTrace.ENABLED && buffer.isBuffer()) {
            BufferTrace.record(BufferTrace.Hop.ENQUEUE, id.hashCode(), sequenceNumber, buffer.getMemorySegment());
        }
        if (!buffer.isBuffer() && !priority && EventSerializer.isEndOfPartition(buffer)) {
            endOfPartitionReceived = true;
        }
        if ((notify && priority) || (announced && !recycle)) {
            notifyPriorityEvent();
        }
        if (backlog >= 0) {
            onSenderBacklog(backlog);
        }
        return notify && !priority;
    }

    /**
     * Queues an announcement of the announced event {@code event}, just added to {@link #received} as number
     * {@link #receivedCount}: a priority element over the same bytes (a retained read-only slice, the
     * announcement's own reference), placed where the event is. Event loop.
     */
    @GuardedBy("receivedLock")
    private void announceLocked(Buffer event) {
        int sequenceNumber = nextAnnouncement;
        nextAnnouncement = (sequenceNumber + 1) & Integer.MAX_VALUE;
        long place = 2 * receivedCount + 1;
        announcedHeld.add(new AnnouncedEvent(event, place, sequenceNumber));
        receivedPriority.add(new PriorityEvent(event.readOnlySlice().retainBuffer(), place, sequenceNumber));
    }

    /**
     * Moves the announced event {@code sequenceNumber} ahead of the data before it: a copy of it (a retained
     * read-only slice) joins the priority elements, at the place where it was received, and the event itself stays
     * in {@link #received} until the consumer reaches it there and drops it. The caller tells the gate of the new
     * priority element. Consumer thread.
     *
     * @return false when the channel no longer holds the event (taken, moved already, or released)
     */
    @Override
    boolean prioritizeAnnounced(int sequenceNumber) {
        List<Buffer> dropped;
        synchronized (receivedLock) {
            AnnouncedEvent toMove = null;
            for (AnnouncedEvent announced : announcedHeld) {
                if (announced.sequenceNumber == sequenceNumber && !announced.moved) {
                    toMove = announced;
                    break;
                }
            }
            if (toMove == null || released) {
                return false;
            }
            toMove.moved = true;
            receivedPriority.add(new PriorityEvent(toMove.event.readOnlySlice().retainBuffer(), toMove.place, -1));
            dropped = dropMovedHeadLocked();
        }
        recycleAll(dropped);
        return true;
    }

    /**
     * Removes the moved events at the head of {@link #received}, if any; returns them for the caller to recycle
     * (outside the lock).
     */
    @GuardedBy("receivedLock")
    private List<Buffer> dropMovedHeadLocked() {
        List<Buffer> dropped = List.of();
        while (!announcedHeld.isEmpty() && announcedHeld.peek().moved
                && announcedHeld.peek().event == received.peek()) {
            if (dropped.isEmpty()) {
                dropped = new ArrayList<>(1);
            }
            dropped.add(received.poll());
            announcedHeld.poll();
        }
        return dropped;
    }

    private static void recycleAll(List<Buffer> buffers) {
        for (int i = 0; i < buffers.size(); i++) {
            buffers.get(i).recycleBuffer();
        }
    }

    /**
     * Tells the gate that this channel has data: the deferred notification of {@link #receive}, public for the
     * connection's handler. Any thread.
     */
    @Override
    public void notifyChannelNonEmpty() {
        super.notifyChannelNonEmpty();
    }

    /** An empty buffer arrived (only its sequence number and backlog matter). Event loop. */
    public void onEmptyBuffer(int sequenceNumber, int backlog) {
        int expected = expectedSequenceNumber;
        if (sequenceNumber != expected) {
            setError(new ShuffleException("channel " + channelIndex + " of " + gate.ownerName() + " lost data from "
                    + connectionId.producerId() + ": expected buffer " + expected + " but received " + sequenceNumber));
            return;
        }
        expectedSequenceNumber = expected + 1;
        senderCredit.decrementAndGet(); // an empty data buffer took a credit too
        if (backlog >= 0) {
            onSenderBacklog(backlog);
        }
    }

    /**
     * The producer has {@code backlog} buffers waiting: borrow floating buffers until the channel holds backlog +
     * initial credit, or wait for the pool. Event loop.
     */
    void onSenderBacklog(int backlog) {
        int added = 0;
        synchronized (buffersLock) {
            if (released) {
                return;
            }
            numRequiredBuffers = backlog + initialCredit;
            while (availableBuffersLocked() < numRequiredBuffers && !waitingForFloatingBuffers
                    && floatingPool != null) {
                Buffer buffer = floatingPool.requestBuffer();
                if (buffer != null) {
                    floatingAvailable.add(buffer);
                    added++;
                } else if (floatingPool.addBufferListener(this)) {
                    waitingForFloatingBuffers = true;
                } else if (floatingPool.isDestroyed()) {
                    break;
                }
            }
        }
        announceCredit(added);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Consuming (consumer thread)
    // ------------------------------------------------------------------------------------------------------------

    @Override
    BufferAndAvailability getNextBuffer() throws IOException {
        checkError();
        Buffer next;
        boolean more;
        boolean priority;
        int announcement = -1;
        List<Buffer> dropped = List.of();
        synchronized (receivedLock) {
            PriorityEvent priorityEvent = receivedPriority.poll();
            priority = priorityEvent != null;
            if (priority) {
                next = priorityEvent.event();
                announcement = priorityEvent.announcement();
                if (announcement < 0) {
                    // An announcement is no event of the stream: its event is counted where it is.
                    lastTakenPriorityPlace = priorityEvent.place();
                    queuedEvents--;
                }
            } else {
                // Only the consumer removes from the queue: this is the number of the one it takes now.
                lastTakenPlace = 2 * (receivedCount - received.size()) + 1;
                next = received.poll();
                if (next != null && !next.isBuffer() && !EventSerializer.isEndOfPartition(next)) {
                    queuedEvents--;
                    if (!announcedHeld.isEmpty() && announcedHeld.peek().event == next) {
                        announcedHeld.poll(); // an announced event taken in its place
                    }
                }
                dropped = dropMovedHeadLocked();
            }
            more = !received.isEmpty() || !receivedPriority.isEmpty();
        }
        recycleAll(dropped);
        if (next == null) {
            return null;
        }
        if (BufferTrace.ENABLED && next.isBuffer()) {
            BufferTrace.record(BufferTrace.Hop.TAKE, id.hashCode(), -1, next.getMemorySegment());
        }
        return new BufferAndAvailability(next, more, 0, priority, announcement);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Data in flight for checkpoints (consumer thread; the places of ChannelPersister)
    // ------------------------------------------------------------------------------------------------------------

    @Override
    long collectHeldEvents(List<HeldEvent> events) {
        synchronized (receivedLock) {
            for (PriorityEvent priorityEvent : receivedPriority) {
                if (priorityEvent.announcement() < 0) { // an announcement is no event of the stream
                    events.add(new HeldEvent(priorityEvent.place(),
                            HeldEvent.copyOf(EventSerializer.payloadOf(priorityEvent.event()))));
                }
            }
            long number = receivedCount - received.size();
            for (Buffer buffer : received) {
                if (!buffer.isBuffer() && !EventSerializer.isEndOfPartition(buffer) && !isMovedLocked(buffer)) {
                    events.add(new HeldEvent(2 * number + 1, HeldEvent.copyOf(EventSerializer.payloadOf(buffer))));
                }
                number++;
            }
            return 2 * receivedCount + 1;
        }
    }

    @Override
    List<Buffer> retainHeldData(long fromPlace, long toPlace) {
        List<Buffer> held = new ArrayList<>();
        synchronized (receivedLock) {
            long place = 2 * (receivedCount - received.size()) + 1;
            for (Buffer buffer : received) {
                if (place >= toPlace) {
                    break;
                }
                if (buffer.isBuffer() && place >= fromPlace) {
                    // Queued buffers are alive under receivedLock: a release drains the queue under it first.
                    held.add(buffer.readOnlySlice().retainBuffer());
                }
                place += 2;
            }
        }
        return held;
    }

    /** Whether {@code event}, held in {@link #received}, was moved: it is listed among the priority elements. */
    @GuardedBy("receivedLock")
    private boolean isMovedLocked(Buffer event) {
        for (AnnouncedEvent announced : announcedHeld) {
            if (announced.event == event) {
                return announced.moved;
            }
        }
        return false;
    }

    @Override
    long placeOfLastTaken(boolean priorityEvent) {
        return priorityEvent ? lastTakenPriorityPlace : lastTakenPlace;
    }

    @Override
    void sendTaskEvent(ByteBuffer event) throws IOException {
        ProducerConnection current;
        synchronized (requestLock) {
            current = client;
        }
        if (current == null) {
            if (released) {
                // Read to its end or closed: the producer no longer serves this channel. Dropped, as a local
                // channel drops it, so that the gate's other channels still get the event.
                LOG.debug("Task event for partition {} dropped: {} is released", partitionId, this);
                return;
            }
            // A request that could not connect recorded why (a TransportException): that is the answer here too.
            checkError();
            throw new ShuffleException("channel " + channelIndex + " of " + gate.ownerName()
                    + " cannot send a task event: it is not connected to " + connectionId);
        }
        current.sendTaskEvent(partitionId, event, this);
    }

    @Override
    void resumeConsumption() {
        ProducerConnection current;
        synchronized (requestLock) {
            current = client;
        }
        if (current == null) {
            // Not connected yet (so nothing blocked it) or released (the producer no longer serves it).
            LOG.debug("Resume of {} ignored: it is not connected", this);
            return;
        }
        current.resumeConsumption(this);
    }

    /**
     * Sends the size to the producer now when connected; else the partition request takes it along. An announcement
     * that overtakes the request is ignored by the producer, and the one sent after the request applies.
     */
    @Override
    void announceBufferSize(int bufferSize) {
        announcedBufferSize = bufferSize;
        ProducerConnection current;
        synchronized (requestLock) {
            current = client;
        }
        if (current != null && !released) {
            current.announceBufferSize(this, bufferSize);
        }
    }

    /** The received buffers not taken yet, and the backlog the producer announced (beyond the initial credit). */
    @Override
    int buffersInUse() {
        int backlog;
        synchronized (buffersLock) {
            backlog = Math.max(0, numRequiredBuffers - initialCredit);
        }
        return queuedBuffers() + backlog;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Credit and recycling
    // ------------------------------------------------------------------------------------------------------------

    /** The credit to send now, reset to zero; the caller announces it. Event loop. */
    public int getAndResetUnannouncedCredit() {
        int credit = unannouncedCredit.getAndSet(0);
        if (credit > 0) {
            senderCredit.addAndGet(credit);
        }
        return credit;
    }

    /** The credit the producer holds or spent on buffers on their way, as far as this channel knows. */
    int senderCredit() {
        return senderCredit.get();
    }

    /** Credit granted and not yet sent. */
    public int unannouncedCredit() {
        return unannouncedCredit.get();
    }

    private void announceCredit(int added) {
        if (added > 0 && unannouncedCredit.getAndAdd(added) == 0) {
            if (senderCredit.get() >= DEFERRABLE_SENDER_CREDIT) {
                // The producer can still send (or a buffer is on its way): the event loop picks this credit up
                // when the next buffer arrives (CreditBasedClientHandler), without a task or a wake-up now.
                return;
            }
            ProducerConnection current;
            synchronized (requestLock) {
                current = client;
            }
            if (current != null && !released) {
                current.notifyCreditAvailable(this);
            }
        }
    }

    /**
     * An exclusive buffer was recycled: it stays with this channel (one more credit), unless the channel now holds
     * more than it needs, in which case one floating buffer goes back to the pool instead. After release the
     * segment returns to the global pool. Any thread.
     */
    @Override
    public void recycle(MemorySegment segment) {
        Buffer surplusFloating = null;
        int added = 0;
        boolean toGlobalPool = false;
        synchronized (buffersLock) {
            if (released) {
                toGlobalPool = true;
            } else {
                exclusiveAvailable.add(new Buffer(segment, this));
                if (availableBuffersLocked() > numRequiredBuffers && !floatingAvailable.isEmpty()) {
                    surplusFloating = floatingAvailable.poll();
                } else {
                    added = 1;
                }
            }
        }
        if (toGlobalPool) {
            networkBufferPool.recycleUnpooledMemorySegments(List.of(segment));
            return;
        }
        if (surplusFloating != null) {
            surplusFloating.recycleBuffer();
        }
        announceCredit(added);
    }

    /**
     * A floating buffer from the gate's pool, while this channel waits for one. Taken only while the channel holds
     * fewer than it requires (the backlog may have dropped since it registered); otherwise declined, and the pool
     * offers it to the next waiting channel itself (recycling it from here would nest one hand-off per waiting
     * channel on the recycling thread's stack). Recycling thread.
     */
    @Override
    public Reply notifyBufferAvailable(Buffer buffer) {
        boolean stillWaiting;
        synchronized (buffersLock) {
            if (released || !waitingForFloatingBuffers || availableBuffersLocked() >= numRequiredBuffers) {
                waitingForFloatingBuffers = false;
                return Reply.DECLINED;
            }
            floatingAvailable.add(buffer);
            stillWaiting = availableBuffersLocked() < numRequiredBuffers;
            waitingForFloatingBuffers = stillWaiting;
        }
        announceCredit(1);
        return stillWaiting ? Reply.TAKEN_WANTS_MORE : Reply.TAKEN;
    }

    @Override
    public void notifyBufferDestroyed() {
        synchronized (buffersLock) {
            waitingForFloatingBuffers = false;
        }
    }

    @GuardedBy("buffersLock")
    private int availableBuffersLocked() {
        return exclusiveAvailable.size() + floatingAvailable.size();
    }

    /** Buffers on hand for the decoder. */
    int availableBuffers() {
        synchronized (buffersLock) {
            return availableBuffersLocked();
        }
    }

    /**
     * Credit the producer knows of and may use now: free buffers on hand, minus the credit granted but not yet
     * announced. For connection metrics; any thread.
     */
    public int announcedCreditOnHand() {
        int onHand;
        synchronized (buffersLock) {
            onHand = released ? 0 : availableBuffersLocked();
        }
        return Math.max(0, onHand - unannouncedCredit.get());
    }

    /** The buffers the channel wants: backlog + initial credit. */
    int requiredBuffers() {
        synchronized (buffersLock) {
            return numRequiredBuffers;
        }
    }

    @Override
    int queuedBuffers() {
        synchronized (receivedLock) {
            return received.size() + receivedPriority.size();
        }
    }

    /** The exclusive buffers not on hand for the decoder: holding data (queued, read, or in the consumer's hands). */
    @Override
    int exclusiveBuffersInUse() {
        synchronized (buffersLock) {
            return released ? 0 : Math.max(0, initialCredit - exclusiveAvailable.size());
        }
    }

    @Override
    int floatingBuffersHeldFree() {
        synchronized (buffersLock) {
            return floatingAvailable.size();
        }
    }

    /** Whether it waits for a floating buffer. */
    boolean isWaitingForFloatingBuffers() {
        synchronized (buffersLock) {
            return waitingForFloatingBuffers;
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Release
    // ------------------------------------------------------------------------------------------------------------

    @Override
    void releaseAllResources() {
        ProducerConnection toClose;
        ScheduledFuture<?> pendingRetry;
        synchronized (requestLock) {
            if (released) {
                return;
            }
            // Written before the queues are drained: an onBuffer or recycle after this point sees it.
            released = true;
            toClose = client;
            client = null;
            pendingRetry = retry;
            retry = null;
        }
        if (pendingRetry != null) {
            pendingRetry.cancel(false);
        }
        List<Buffer> queued = new ArrayList<>();
        synchronized (receivedLock) {
            for (PriorityEvent priorityEvent : receivedPriority) {
                queued.add(priorityEvent.event());
            }
            queued.addAll(received);
            receivedPriority.clear();
            received.clear();
            announcedHeld.clear();
            queuedEvents = 0;
        }
        List<MemorySegment> exclusiveSegments = new ArrayList<>();
        List<Buffer> floating;
        synchronized (buffersLock) {
            for (Buffer buffer : exclusiveAvailable) {
                exclusiveSegments.add(buffer.getMemorySegment());
            }
            exclusiveAvailable.clear();
            floating = new ArrayList<>(floatingAvailable);
            floatingAvailable.clear();
            waitingForFloatingBuffers = false;
        }
        // Exclusive buffers among these come back through recycle() and go to the global pool from there.
        for (Buffer buffer : queued) {
            buffer.recycleBuffer();
        }
        for (Buffer buffer : floating) {
            buffer.recycleBuffer();
        }
        if (!exclusiveSegments.isEmpty()) {
            networkBufferPool.recycleUnpooledMemorySegments(exclusiveSegments);
        }
        if (toClose != null) {
            // After the end of the partition the server has already let go of its reader: no cancel needed.
            toClose.close(this, !endOfPartitionReceived);
        }
        LOG.debug("Released {}", this);
    }

    /** Whether the channel was released; any thread. */
    @Override
    public boolean isReleased() {
        return released;
    }

    /**
     * A priority element the channel holds, and its place in the stream (see {@link ChannelPersister}), although it
     * is handed out ahead of what it overtook: a priority event sits before the data buffer or event received after
     * it, a moved event and an announcement where the announced event was received.
     *
     * @param event        the element's own reference: the event, or a retained slice of an announced one
     * @param place        its place
     * @param announcement for an announcement its sequence number, else -1
     */
    private record PriorityEvent(Buffer event, long place, int announcement) {
    }

    /**
     * An announced event in {@link #received}: the buffer (the queue's reference; compared by identity), its place,
     * its announcement's number, and whether it was moved ahead. Guarded by {@code receivedLock}.
     */
    private static final class AnnouncedEvent {

        final Buffer event;
        final long place;
        final int sequenceNumber;
        boolean moved;

        AnnouncedEvent(Buffer event, long place, int sequenceNumber) {
            this.event = event;
            this.place = place;
            this.sequenceNumber = sequenceNumber;
        }
    }
}
