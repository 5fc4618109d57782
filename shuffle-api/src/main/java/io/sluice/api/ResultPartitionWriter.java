package io.sluice.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Producer side of one result partition: records go to one subpartition per consumer, framed as
 * {@link RecordFraming} defines. Used by one producer thread at a time; {@link #close()} may be
 * called from any thread at any time.
 */
public interface ResultPartitionWriter extends AutoCloseable {

    /**
     * The largest event payload {@link #broadcastEvent} accepts, in bytes (64 KiB). Events travel outside the memory
     * budget and without credit; data of any size goes as records.
     */
    int MAX_EVENT_BYTES = 64 * 1024;

    /**
     * How many events one subpartition holds that its consumer has not read yet, and likewise how many one
     * receiving channel holds (256). With {@link #MAX_EVENT_BYTES} this bounds the heap events can take per
     * consumer at 16 MiB.
     */
    int MAX_QUEUED_EVENTS = 256;

    /** @return the partition this writer produces */
    ResultPartitionId partitionId();

    /** @return the number of subpartitions (consumers) */
    int numberOfSubpartitions();

    /**
     * Takes the writer's buffer pool and registers the partition so consumers can request it.
     *
     * @throws InsufficientBuffersException when the environment has too little free memory
     * @throws IOException for any other failure; a failed setup leaves nothing reserved
     */
    void setup() throws IOException;

    /**
     * Appends one record to a subpartition; blocks while no buffer is free (backpressure).
     * Reads {@code record} from its position to its limit and leaves both as they were; the
     * caller keeps ownership of {@code record} and may reuse it as soon as this returns.
     *
     * @param record the record's bytes, 0 to 2^31-1 of them
     * @param targetSubpartition the consumer to send it to
     * @throws ShuffleException after {@link #close()}, or once the partition was released
     *                          ({@code releasePartitionsLocally}, the environment's {@code close()}), naming the
     *                          partition and why; records for a subpartition whose consumer has gone are dropped
     *                          without an error
     * @throws IOException when the writer failed or was closed
     */
    void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException;

    /**
     * Appends one record to every subpartition; ownership as in {@link #emitRecord}.
     *
     * @param record the record's bytes
     * @throws IOException when the writer failed or was closed
     */
    void broadcastRecord(ByteBuffer record) throws IOException;

    /**
     * Sends an event to every subpartition; never blocks and takes no buffer from the pool.
     * The caller keeps ownership of {@code event}; its bytes are copied.
     *
     * <p>Events are bounded: a payload above {@link #MAX_EVENT_BYTES} is refused, and so is an event for a
     * subpartition that already holds {@link #MAX_QUEUED_EVENTS} events its consumer has not read (a consumer that
     * does not read its events; a non-priority event also waits behind the data before it). Both throw a
     * {@link ShuffleException} naming the numbers, and then no subpartition gets the event. A consumer that has
     * gone is not counted: its events are dropped.
     *
     * @param event the event's payload, at most {@link #MAX_EVENT_BYTES} bytes
     * @param priority true to overtake the data queued before it
     * @throws ShuffleException when the event is too large, a subpartition holds too many unread events, or the
     *                          writer was closed or released
     * @throws IOException when the writer failed or was closed
     */
    void broadcastEvent(ByteBuffer event, boolean priority) throws IOException;

    /**
     * Sends an event to every subpartition and then blocks each subpartition: after delivering this event a
     * subpartition hands its consumer nothing more (no data, no event) until that consumer calls
     * {@link InputGate#resumeConsumption(int)} for the channel that reads it. Records emitted meanwhile are queued
     * (and, once the queue is full, {@link #emitRecord} blocks as usual). This is what aligned checkpoint barriers
     * need: nothing produced after the barrier reaches the consumer before the consumer has aligned.
     * Never blocks; takes no buffer from the pool; the event keeps its order with the records (it is not a priority
     * event). The caller keeps ownership of {@code event}; its bytes are copied.
     *
     * <p>A {@link PartitionType#BLOCKING} partition is read only after it is finished, so there is nothing to align:
     * there the event is stored like one of {@link #broadcastEvent} (in order, written once), its consumers are not
     * held back after it, and their {@link InputGate#resumeConsumption(int)} is accepted and does nothing.
     *
     * @param event the event's payload
     * @throws IOException when the writer failed or was closed
     */
    void broadcastBlockingEvent(ByteBuffer event) throws IOException;

    /**
     * Sends a blocking event to every subpartition, as {@link #broadcastBlockingEvent(ByteBuffer)} does, and tracks
     * it: {@code delivery} is told, once per subpartition, whether the event went out in its place, was replaced by
     * a priority event ({@link #prioritizeQueuedEvent}) or was dropped (see {@link EventDeliveryListener}). A consumer
     * that receives the event over the network announces it: its gate hands out an announcement, a priority element
     * ahead of the data the channel holds before the event ({@link BufferOrEvent#isAnnouncement()}), and the event
     * itself can then be moved ahead of that data ({@link InputGate#prioritizeAnnounced}). This is what an aligned
     * checkpoint barrier that may time out into an unaligned one needs on both sides.
     *
     * <p>A {@link PartitionType#BLOCKING} partition stores the event in order, as {@link #broadcastBlockingEvent}
     * does, reports it {@link EventDeliveryListener.Outcome#SENT SENT} for every subpartition once stored, and its
     * consumers announce nothing. Producer thread.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's writers implement it.
     *
     * @param event    the event's payload; the caller keeps ownership, the bytes are copied
     * @param delivery told what became of the event in each subpartition
     * @throws IOException when the writer failed or was closed, or the event is refused as by {@code broadcastEvent}
     *                     (then {@code delivery} is told nothing)
     */
    default void broadcastAnnouncedBlockingEvent(ByteBuffer event, EventDeliveryListener delivery)
            throws IOException {
        // Intended: other implementations keep compiling, and a blocking event whose delivery is never told would
        // leave the engine waiting.
        throw new UnsupportedOperationException(getClass().getName() + " cannot track an event's delivery");
    }

    /**
     * Sends a priority event to every subpartition, as {@link #broadcastEvent(ByteBuffer, boolean)
     * broadcastEvent(event, true)} does, and hands {@code overtaken}, subpartition by subpartition, every data buffer
     * the event overtook there: the record bytes queued in the subpartition and not yet sent to its consumer (the
     * unsent rest of a buffer partly sent included), in order. The overtaken data still goes to the consumer after
     * the event, as with {@code broadcastEvent}; the sink gets its own references (see {@link InFlightDataSink}).
     * Records emitted after this call go into new buffers, so nothing emitted later is handed over. The sink is
     * called on the caller's thread before this method returns; a subpartition with nothing queued hands nothing.
     * An engine persists what it is handed with a checkpoint whose barrier is the event (unaligned checkpoints).
     *
     * <p>A {@link PartitionType#BLOCKING} partition keeps its events in order, so its events overtake nothing and
     * the sink is never called. Bounded like {@link #broadcastEvent}. Producer thread.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's writers implement it.
     *
     * @param event     the event's payload; the caller keeps ownership, the bytes are copied
     * @param overtaken receives the overtaken data buffers
     * @throws IOException when the writer failed or was closed, or the event is refused as by {@code broadcastEvent}
     */
    default void broadcastPriorityEvent(ByteBuffer event, InFlightDataSink overtaken) throws IOException {
        // Intended: other implementations keep compiling, and doing nothing here would lose data silently.
        throw new UnsupportedOperationException(getClass().getName() + " cannot hand out overtaken data");
    }

    /**
     * Turns an event already queued into a priority event: in each subpartition, the first queued event not yet
     * sent for which {@code replacement} returns non-null is taken out of its place, the returned payload is sent as
     * a priority event ahead of the data queued before it (and, if the original was a blocking event, it no longer
     * blocks the subpartition), and the data it overtook goes to {@code overtaken} as with
     * {@link #broadcastPriorityEvent}. A subpartition in which no queued event matches (none queued, or the event was
     * sent already) is left alone. This is what an aligned checkpoint barrier that timed out needs: it becomes an
     * unaligned one. {@code replacement} sees each queued event's payload (read-only, position to limit) and must
     * not keep it. Never blocks; producer thread.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's writers implement it ({@link PartitionType#BLOCKING} ones match nothing).
     *
     * @param replacement the priority payload for a matching queued event, or null for any other
     * @param overtaken   receives the overtaken data buffers
     * @return the number of subpartitions in which an event was turned into a priority event
     * @throws IOException when the writer failed or was closed
     */
    default int prioritizeQueuedEvent(Function<ByteBuffer, ByteBuffer> replacement,
                                      InFlightDataSink overtaken) throws IOException {
        // Intended: other implementations keep compiling, and doing nothing here would lose data silently.
        throw new UnsupportedOperationException(getClass().getName() + " cannot prioritize queued events");
    }

    /**
     * Queues recovered in-flight data for one subpartition, such as the output data an engine persisted with a
     * checkpoint and restores before producing again: {@code bytes} go out to the subpartition's consumer after what
     * is queued there already and before anything emitted later, as one or more data buffers that hold exactly these
     * bytes ({@code isEvent} false: framed record bytes, which may begin or end inside a record, so that consumers
     * reading the stream see them as its continuation), or as one event for this subpartition only ({@code isEvent}
     * true: an event payload as {@link #broadcastEvent} takes, not a priority one). The bytes are copied into the
     * partition's buffers; like {@link #emitRecord}, a call waits while no buffer is free. Producer thread, after
     * {@link #setup()}.
     *
     * <p>An addition to the original interface; the default throws {@link UnsupportedOperationException}, the
     * environment's writers implement it.
     *
     * @param targetSubpartition the subpartition, in {@code [0, numberOfSubpartitions())}
     * @param bytes              the recovered bytes, position to limit; the caller keeps ownership
     * @param isEvent            true for an event payload, false for record bytes
     * @throws IOException when the writer failed or was closed
     */
    default void emitRecovered(int targetSubpartition, ByteBuffer bytes, boolean isEvent) throws IOException {
        // Intended: other implementations keep compiling, and doing nothing here would lose data silently.
        throw new UnsupportedOperationException(getClass().getName() + " cannot queue recovered data");
    }

    /**
     * Lets {@link #emitRecord} and {@link #broadcastRecord} take up to {@code maxOverdraftBuffers} buffers beyond
     * the partition's own memory when none of its own is free, taken only from the environment's free memory (never
     * from another partition's): a record that spans several buffers, started when {@link #availableFuture()} said
     * available, then completes without blocking, which an engine that emits from an event-driven thread (Flink's
     * mailbox) needs. Each overdraft buffer goes back to the environment when its consumer recycles it; while any is
     * out, {@link #availableFuture()} is pending, so the engine starts no new record. When the environment has no
     * free memory either, the emit waits as without overdraft. 0, the default, turns overdraft off. May be called
     * before or after {@link #setup()}, from the producer thread; applies to later requests.
     *
     * <p>An addition to the original interface. The default ignores the call, which is right for writers whose
     * emits never wait for memory (a blocking partition spills to disk instead).
     *
     * @param maxOverdraftBuffers how many buffers beyond the partition's memory may be out at a time, at least 0
     * @throws IllegalArgumentException for a negative number
     */
    default void setMaxOverdraftBuffers(int maxOverdraftBuffers) {
        if (maxOverdraftBuffers < 0) {
            throw new IllegalArgumentException("max overdraft buffers must be >= 0, was " + maxOverdraftBuffers);
        }
    }

    /** @param targetSubpartition makes its buffered data available for sending; never blocks */
    void flush(int targetSubpartition);

    /** Makes the buffered data of every subpartition available for sending; never blocks. */
    void flushAll();

    /**
     * A future that is done when returned stays done (a continuation added to it runs on the caller's thread);
     * one that is pending is completed by the environment's notification thread, never by a transport event loop
     * or a thread that recycles buffers, so {@code availableFuture().thenRun(this::emitMore)} may emit from the
     * continuation.
     *
     * @return completes when {@link #emitRecord} will not block
     */
    CompletableFuture<?> availableFuture();

    /**
     * Like {@link #availableFuture()}, without the thread hop: a future that is done when returned stays done; a
     * pending one is completed directly by whichever thread makes the writer available (a transport event loop or
     * a consumer's thread that recycles a buffer, a thread that releases the writer), so its continuations run on
     * that thread. For a producer thread that only blocks on it ({@code get()}, {@code join()}), and for
     * continuations that only hand work to another thread (an engine's mailbox, a queue, {@code LockSupport.unpark})
     * and return at once: they must never block, do I/O, emit, or call back into the shuffle in any other way. Do not
     * complete or cancel it yourself: it may be the writer's own future. Any thread.
     *
     * <p>An addition to the original interface; the default returns {@link #availableFuture()}, so a writer without
     * a cheaper future costs the hop as before.
     *
     * @return completes when {@link #emitRecord} will not block
     */
    default CompletableFuture<?> wakeUpFuture() {
        return availableFuture();
    }

    /**
     * Ends the data on every subpartition.
     *
     * @throws IOException when the writer failed or was closed
     */
    void finish() throws IOException;

    /** @param cause reaches consumers as a {@link ProducerFailedException} carrying its message */
    void fail(Throwable cause);

    /**
     * Registers a listener for the task events consumers send with
     * {@link InputGate#sendTaskEvent(ByteBuffer)}. The listener is called on a transport or
     * consumer thread, must not block, and may read the buffer only during the call.
     *
     * @param listener receives each event's payload
     */
    void onTaskEvent(Consumer<ByteBuffer> listener);

    /** @return bytes written into buffers so far, record framing included; any thread */
    long bytesOut();

    /** @return data buffers completed so far (each one is sent, or read in-process, once); any thread */
    long buffersOut();

    /**
     * A snapshot of the writer's figures: bytes, buffers and records out, the time the producer was blocked for
     * lack of buffers (backpressure), the output pool's usage and each subpartition's backlog. Cheap: reads
     * counters, takes no lock the producer holds while it writes; any thread, also after {@link #close()}.
     *
     * <p>The default reports {@link #bytesOut()} and {@link #buffersOut()} and zero for what it cannot know;
     * the environment's writers report every figure.
     *
     * @return the writer's figures now
     */
    default WriterMetrics metrics() {
        return new WriterMetrics(partitionId(), toString(), System.nanoTime(), bytesOut(), buffersOut(), 0, 0, 0, 0,
                List.of());
    }

    /**
     * Releases what this writer holds; idempotent. After {@link #finish()} the finished data stays
     * for its consumers; without it the partition is released and consumers fail.
     */
    @Override
    void close();
}
