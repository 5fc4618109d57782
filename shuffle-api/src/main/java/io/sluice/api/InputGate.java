package io.sluice.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Consumer side: reads one subpartition of each of several partitions, one channel per
 * partition. Used by one consumer thread; {@link #close()}, {@link #isFinished()} and
 * {@link #availableFuture()} may be called from any thread.
 */
public interface InputGate extends AutoCloseable {

    /** @return the number of channels */
    int numberOfInputChannels();

    /**
     * Reserves the exclusive buffers and requests every partition.
     *
     * @throws InsufficientBuffersException when there is too little free memory
     * @throws IOException for any other failure; a failed setup leaves nothing reserved
     */
    void setup() throws IOException;

    /**
     * Never blocks. The caller owns a returned buffer or event and recycles it.
     *
     * @return the next buffer or event, or empty when nothing is there now or the gate has finished
     * @throws IOException when a channel failed
     */
    Optional<BufferOrEvent> pollNext() throws IOException;

    /**
     * Blocks until a buffer or event is there. The caller owns it and recycles it.
     *
     * @return the next buffer or event, or empty once every channel has ended
     * @throws IOException when a channel failed
     * @throws InterruptedException when the thread is interrupted while waiting; Sluice's gates leave the thread's
     *     interrupt status set
     */
    Optional<BufferOrEvent> getNext() throws IOException, InterruptedException;

    /**
     * A future that is done when returned stays done; one that is pending is completed by the environment's
     * notification thread, never by a transport event loop or a producer's thread.
     *
     * @return completes when {@link #pollNext()} has something, or the gate finished or failed
     */
    CompletableFuture<?> availableFuture();

    /**
     * Like {@link #availableFuture()}, without the thread hop: a future that is done when returned stays done; a
     * pending one is completed directly by whichever thread makes the gate available (a transport event loop, a
     * producer's thread in the same environment, a timer, or the thread that closes the gate), so its continuations
     * run on that thread. For a thread that only blocks on it ({@code get()}, {@code join()}), and for continuations
     * that only hand work to another thread (an engine's mailbox, a queue, {@code LockSupport.unpark}) and return at
     * once: they must never block, do I/O, or call back into the shuffle, and a slow one delays every other channel
     * that thread serves. Do not complete or cancel it yourself: it may be the gate's own future. Any thread.
     *
     * <p>An addition to the original interface; the default returns {@link #availableFuture()}, so a gate without
     * a cheaper future costs the hop as before.
     *
     * @return completes when {@link #pollNext()} has something, or the gate finished or failed
     */
    default CompletableFuture<?> wakeUpFuture() {
        return availableFuture();
    }

    /**
     * Tells the consumer that a priority event (see {@link BufferOrEvent#isPriority()}) is waiting: while the
     * returned future is done, the next {@link #pollNext()} returns a priority event, ahead of any data. A future
     * that is done when returned stays done; once the consumer has taken every priority event, the next call returns
     * a new, pending future. A future got before the consumer took the last priority event may still complete
     * after it (its announcement raced with the take), so a woken consumer asks for the current future before it
     * polls. A pending one is completed by the environment's notification thread, like
     * {@link #availableFuture()}; it also completes when the gate closes. An addition to the original interface:
     * the default, for gates that know no priority events, never completes.
     *
     * @return completes when a priority event can be polled
     */
    default CompletableFuture<?> priorityEventAvailableFuture() {
        return new CompletableFuture<>();
    }

    /**
     * Like {@link #priorityEventAvailableFuture()}, without the thread hop: a pending one is completed directly by
     * the thread that delivers the priority event (or closes the gate), under the same rules as
     * {@link #wakeUpFuture()}: block on it, or hand work to another thread from it, nothing more. Do not complete
     * or cancel it yourself. Any thread.
     *
     * <p>An addition to the original interface; the default returns {@link #priorityEventAvailableFuture()}.
     *
     * @return completes when a priority event can be polled
     */
    default CompletableFuture<?> priorityEventWakeUpFuture() {
        return priorityEventAvailableFuture();
    }

    /** @return true once every channel has reached the end of its partition */
    boolean isFinished();

    /**
     * Sends an event backwards to the producer of every partition this gate reads
     * (delivered to {@link ResultPartitionWriter#onTaskEvent}). The caller keeps ownership of
     * {@code event}; its bytes are copied before this returns.
     *
     * @param event the event's payload
     * @throws IOException when the event cannot be sent
     */
    void sendTaskEvent(ByteBuffer event) throws IOException;

    /**
     * Sends an event backwards to the producer of one channel's partition only (delivered to
     * {@link ResultPartitionWriter#onTaskEvent}). The caller keeps ownership of {@code event}; its bytes are copied
     * before this returns.
     *
     * @param channelIndex the channel whose producer receives the event
     * @param event the event's payload
     * @throws IOException when the event cannot be sent
     * @throws IndexOutOfBoundsException for a channel index outside {@code [0, numberOfInputChannels())}
     */
    void sendTaskEvent(int channelIndex, ByteBuffer event) throws IOException;

    /**
     * Unblocks a channel whose producer sent a blocking event
     * ({@link ResultPartitionWriter#broadcastBlockingEvent}): the producer's subpartition resumes sending what it
     * queued behind that event. A channel that is not blocked ignores the call; so does a channel that has ended,
     * and a channel reading a {@link PartitionType#BLOCKING} partition, which a blocking event never blocks.
     * Consumer thread.
     *
     * @param channelIndex the channel to resume
     * @throws IOException when the request cannot be sent to the producer
     * @throws IndexOutOfBoundsException for a channel index outside {@code [0, numberOfInputChannels())}
     */
    void resumeConsumption(int channelIndex) throws IOException;

    /**
     * A snapshot of the gate's figures: bytes and buffers the consumer took, buffers queued for it, the usage of
     * its exclusive and floating buffers, and the time the consumer waited for data. Cheap: reads counters and
     * takes no lock the consumer waits on; any thread, also after {@link #close()}.
     *
     * <p>The default knows only the number of channels and reports zero for the rest; the environment's gates
     * and {@link UnionInputGate} report every figure.
     *
     * @return the gate's figures now
     */
    default GateMetrics metrics() {
        return new GateMetrics(toString(), System.nanoTime(), numberOfInputChannels(), 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /**
     * Names a channel for error messages, such as the {@link ShuffleException} a {@link RecordReader} throws when
     * the channel's stream is corrupt or ends inside a record. Any thread; cheap, but meant for failures, not for
     * every record.
     *
     * <p>An addition to the original interface; the default says {@code "channel <index>"}, the environment's gates
     * add the gate's owner, the partition and subpartition the channel reads, and its producer.
     *
     * @param channelIndex a channel of this gate
     * @return a description that starts with {@code "channel <index>"}
     */
    default String describeChannel(int channelIndex) {
        return "channel " + channelIndex;
    }

    /**
     * Buffer debloating: measures the gate's throughput since the previous call (bytes taken per second, leaving out
     * the time the consumer found the gate empty), derives the buffer size that keeps {@code shuffle.debloat.target}
     * of data in flight (throughput x target / buffers in flight, within {@code shuffle.debloat.min-buffer-size}
     * and the segment size, averaged over {@code shuffle.debloat.samples} calls), and, when it differs enough from
     * the size announced last ({@code shuffle.debloat.threshold-percentage}), announces it to the producer of every
     * channel, which cuts its next buffers at that size. For an engine that drives debloating itself
     * ({@code shuffle.debloat.period = 0}), about every 200 ms; the environment calls it on its own timer otherwise.
     * Does nothing when {@code shuffle.debloat.enabled} is false, before {@link #setup()}, and after
     * {@link #close()}. Never blocks on the data path and never throws. Any thread.
     *
     * <p>An addition to the original interface; the default does nothing.
     */
    default void triggerDebloating() {
    }

    /**
     * The buffer size this gate announced to its producers last (see {@link #triggerDebloating()}), in bytes: from
     * {@link #setup()} on, the starting size ({@code shuffle.debloat.starting-buffer-size}) until a recalculation
     * announces another; 0 while it has announced none (debloating off, or before setup), when its producers cut
     * whole segments. Any thread.
     *
     * <p>An addition to the original interface; the default returns 0.
     *
     * @return the announced buffer size, or 0
     */
    default int debloatedBufferSize() {
        return 0;
    }

    /**
     * Starts persisting the data in flight towards this gate for a checkpoint whose barriers are priority events
     * (unaligned checkpoints). For every channel, each data buffer that comes before that channel's <em>ending</em>
     * event in the channel's stream (its first event, priority or not, received or already taken, for which
     * {@code endsPersisting} returns true; a priority event's place in the stream is where the channel received
     * it) and that the consumer has not taken yet goes to {@code sink}, once: those the channel holds now at once,
     * within this call, and later ones when the consumer takes them with {@link #pollNext()} or {@link #getNext()},
     * or, for those an ending priority event overtook in the channel, when the consumer takes that event. A channel
     * whose ending event the consumer took before this call hands only the data it received before that event and
     * still holds; a channel whose ending event has been handed out hands nothing more. Data a priority event overtook in
     * its producer's subpartition is the producer's to persist ({@link ResultPartitionWriter#broadcastPriorityEvent})
     * and never reaches this sink. Events are never persisted.
     *
     * <p>Persisting lasts until {@link #stopPersisting()} or the next call of this method (which replaces the
     * predicate and the sink); while none is started, the data path does no more than a field read per buffer.
     * {@code endsPersisting} sees events' payloads (read-only, position to limit; it must not keep them)
     * and is called on the consumer thread, as is the sink. Consumer thread.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's gates and {@link UnionInputGate} implement it.
     *
     * @param endsPersisting whether an event is the one that ends persisting on its channel
     * @param sink           receives the persisted data buffers, with the channel index
     */
    default void startPersisting(Predicate<ByteBuffer> endsPersisting, InFlightDataSink sink) {
        // Intended: other implementations keep compiling, and doing nothing here would lose data silently.
        throw new UnsupportedOperationException(getClass().getName() + " cannot persist data in flight");
    }

    /**
     * Stops persisting on every channel (see {@link #startPersisting}); what was handed to the sink stays the
     * sink's. Does nothing when none is started. Consumer thread.
     *
     * <p>An addition to the original interface; the default does nothing.
     */
    default void stopPersisting() {
    }

    /**
     * Queues a recovered buffer or event for the channel {@code recovered.channelIndex()}, such as input data an
     * engine persisted with a checkpoint and restores: the gate hands it out, in the order of these calls, before
     * any live data or event of that channel, through {@link #pollNext()} and {@link #getNext()}, and makes the gate
     * available for it. Allowed before and after {@link #setup()}; before it the gate hands out recovered elements
     * only. The element is handed out as it is (the consumer recycles it, which runs its own
     * {@link BufferOrEvent#recycle()}); ownership passes to the gate, which recycles what it never handed out on
     * {@link #close()}. Any thread; the elements of one channel must come from one thread, in order.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's gates and {@link UnionInputGate} implement it.
     *
     * @param recovered a recovered buffer or event (never a priority one), for a channel of this gate
     * @throws IndexOutOfBoundsException for a channel index outside {@code [0, numberOfInputChannels())}
     */
    default void addRecovered(BufferOrEvent recovered) {
        // Intended: other implementations keep compiling, and doing nothing here would lose data silently.
        throw new UnsupportedOperationException(getClass().getName() + " cannot hand out recovered data");
    }

    /**
     * Moves an announced event (see {@link BufferOrEvent#isAnnouncement()}) ahead of the data its channel still
     * holds before it: the event is handed out next from that channel, as a priority event, and the data it
     * overtook follows it. For persisting ({@link #startPersisting}) the event still sits where the channel received
     * it, so the data it overtook counts as before it. Nothing happens when the channel no longer holds the event
     * (its consumer took it already). Consumer thread.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's gates and {@link UnionInputGate} implement it.
     *
     * @param channelIndex   the channel of the announcement ({@link BufferOrEvent#channelIndex()})
     * @param sequenceNumber the announcement's {@link BufferOrEvent#announcedSequenceNumber()}
     * @return true when the event was moved, false when the channel no longer held it
     * @throws IndexOutOfBoundsException for a channel index outside {@code [0, numberOfInputChannels())}
     */
    default boolean prioritizeAnnounced(int channelIndex, int sequenceNumber) {
        // Intended: other implementations keep compiling; announcements come only from the environment's gates.
        throw new UnsupportedOperationException(getClass().getName() + " cannot prioritize announced events");
    }

    /** Cancels the requests and returns every buffer; idempotent. */
    @Override
    void close();
}
