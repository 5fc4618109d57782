package io.sluice.netty.gate;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * One channel of a {@link SingleInputGate}: reads one subpartition of one producer partition.
 *
 * <p>Threads: {@link #getNextBuffer()} is called by the gate's consumer thread only; {@link #setError},
 * {@link #releaseAllResources()} from any thread. A channel tells its gate of new data through
 * {@link SingleInputGate#notifyChannelNonEmpty}, never while holding a lock of its own.
 */
public abstract class InputChannel {

    protected final SingleInputGate gate;
    protected final int channelIndex;
    protected final ResultPartitionId partitionId;
    protected final int subpartitionIndex;
    /** The last subpartition this channel reads, after those from {@link #subpartitionIndex} on. */
    protected final int lastSubpartitionIndex;

    /** Bytes of data buffers the gate took from this channel, checked at its end of partition. Consumer thread. */
    private long dataBytesTaken;
    /** Data buffers the gate took from this channel, checked at its end of partition when it carries their count. */
    private long dataBuffersTaken;

    /** The first failure of this channel; surfaces at the consumer's next read. */
    private volatile Throwable error;

    /** Persists this channel's data in flight for the gate's checkpoints. Consumer thread. */
    private final ChannelPersister persister = new ChannelPersister(this);

    protected InputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId,
                           int subpartitionIndex) {
        this(gate, channelIndex, partitionId, subpartitionIndex, subpartitionIndex);
    }

    /** A channel reading the subpartitions {@code subpartitionIndex..lastSubpartitionIndex}, one after the other. */
    protected InputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId,
                           int subpartitionIndex, int lastSubpartitionIndex) {
        this.gate = gate;
        this.channelIndex = channelIndex;
        this.partitionId = partitionId;
        this.subpartitionIndex = subpartitionIndex;
        this.lastSubpartitionIndex = lastSubpartitionIndex;
    }

    /** The last subpartition this channel reads (its first one when it reads one). */
    public int lastSubpartitionIndex() {
        return lastSubpartitionIndex;
    }

    /** The channel's index in its gate. */
    public int channelIndex() {
        return channelIndex;
    }

    /** The partition this channel reads. */
    public ResultPartitionId partitionId() {
        return partitionId;
    }

    /** The subpartition of that partition this channel reads. */
    public int subpartitionIndex() {
        return subpartitionIndex;
    }

    /**
     * The channel for an error message: its index, its gate's owner, the partition and subpartition it reads, and
     * (where it has one) its producer. Any thread.
     */
    public String describe() {
        return "channel " + channelIndex + " of " + gate.ownerName() + " (partition " + partitionId
                + ", subpartition " + subpartitionIndex + producerDescription() + ")";
    }

    /** ", producer ..." for {@link #describe()}, or empty when the producer is this environment. */
    String producerDescription() {
        return "";
    }

    /** The gate took a data buffer of {@code bytes} bytes from this channel. Consumer thread. */
    final void onDataTaken(int bytes) {
        dataBytesTaken += bytes;
        dataBuffersTaken++;
    }

    /** Bytes of data buffers the gate took from this channel so far. Consumer thread. */
    final long dataBytesTaken() {
        return dataBytesTaken;
    }

    /** Data buffers the gate took from this channel so far. Consumer thread. */
    final long dataBuffersTaken() {
        return dataBuffersTaken;
    }

    /** What persists this channel's data in flight for a checkpoint. Consumer thread. */
    final ChannelPersister persister() {
        return persister;
    }

    // Data in flight for checkpoints: the places of ChannelPersister. The defaults suit a channel that holds nothing
    // it received (a local channel reads its producer's subpartition directly; an unreachable one reads nothing).

    /**
     * Adds copies of the user events this channel holds (received, not taken yet), with their places, to
     * {@code events}. Consumer thread.
     *
     * @return the place of the next data buffer the channel will receive: every held data buffer's place is lower
     */
    long collectHeldEvents(List<HeldEvent> events) {
        return 0;
    }

    /**
     * The data buffers this channel holds whose places are in {@code [fromPlace, toPlace)}, in stream order, each
     * a read-only slice retained for the caller, who owns it. Consumer thread.
     */
    List<Buffer> retainHeldData(long fromPlace, long toPlace) {
        return List.of();
    }

    /**
     * The place of the element the consumer took from this channel last: a data buffer or a non-priority event, or
     * (with {@code priorityEvent}) a priority event. Consumer thread, right after the take.
     */
    long placeOfLastTaken(boolean priorityEvent) {
        return ChannelPersister.UNPLACED;
    }

    /**
     * Moves the announced event {@code sequenceNumber} this channel holds ahead of the data before it (see
     * {@link SingleInputGate#prioritizeAnnounced}); the gate then counts one more priority element of the channel.
     * False by default: only a remote channel announces events (a local one reads its producer's subpartition, where
     * the producer itself moves an event). Consumer thread.
     *
     * @return whether the event was moved
     */
    boolean prioritizeAnnounced(int sequenceNumber) {
        return false;
    }

    /** Reserves what the channel needs before its request; nothing by default. Consumer thread. */
    void setup() throws IOException {
    }

    /** Memory this channel will reserve in {@link #setup()}, in exclusive segments. */
    int exclusiveSegmentsRequired() {
        return 0;
    }

    /** Asks for the subpartition; retries (with backoff) while the partition is not registered. */
    abstract void requestSubpartition() throws IOException;

    /**
     * The next buffer, or null when nothing is readable now.
     *
     * @throws IOException the channel's failure (producer failed, partition not found, transport lost)
     */
    abstract BufferAndAvailability getNextBuffer() throws IOException;

    /** Sends a task event to the producer of this channel's partition. */
    abstract void sendTaskEvent(ByteBuffer event) throws IOException;

    /** Lets the producer's subpartition send again after a blocking event; consumer thread. */
    abstract void resumeConsumption() throws IOException;

    /** Releases everything the channel holds; idempotent; any thread. */
    abstract void releaseAllResources();

    /**
     * Tells the producer's subpartition to cut its next buffers at {@code bufferSize} bytes (buffer debloating);
     * remembered, so that a channel not connected yet announces it once it is. Ignored by default (a channel that
     * reads nothing). The gate's debloating thread, one call at a time.
     *
     * @param bufferSize the wanted size of a buffer in bytes, > 0
     */
    void announceBufferSize(int bufferSize) {
    }

    /**
     * Buffers of this channel's stream in flight towards the consumer now: queued for it, and (for a remote channel)
     * announced by the producer as its backlog. The divisor of the buffer size calculation. Any thread.
     */
    int buffersInUse() {
        return queuedBuffers();
    }

    /** Buffers and events ready for the consumer and not taken yet; for metrics, any thread. */
    int queuedBuffers() {
        return 0;
    }

    /** Exclusive buffers of this channel that hold data now (queued, or taken and not recycled); any thread. */
    int exclusiveBuffersInUse() {
        return 0;
    }

    /** Floating buffers this channel borrowed and holds free for the next data; any thread. */
    int floatingBuffersHeldFree() {
        return 0;
    }

    /** Whether {@link #releaseAllResources()} ran. */
    abstract boolean isReleased();

    /**
     * Records the channel's first failure and wakes the consumer, who sees it at its next read. Any thread.
     */
    public void setError(Throwable cause) {
        if (error == null) {
            synchronized (this) {
                if (error == null) {
                    error = cause;
                }
            }
        }
        gate.notifyChannelNonEmpty(this);
    }

    /** Whether a failure was recorded. */
    boolean hasError() {
        return error != null;
    }

    /** Throws the recorded failure, if any, as the API's exception types. */
    protected void checkError() throws IOException {
        Throwable cause = error;
        if (cause == null) {
            return;
        }
        if (cause instanceof IOException) {
            // Rethrown as is: the API's types (ProducerFailedException, TransportException, ...) reach the engine.
            throw (IOException) cause;
        }
        throw new ShuffleException("channel " + channelIndex + " of " + gate.ownerName() + " reading partition "
                + partitionId + " failed: " + cause, cause);
    }

    protected void notifyChannelNonEmpty() {
        gate.notifyChannelNonEmpty(this);
    }

    protected void notifyPriorityEvent() {
        gate.notifyPriorityEvent(this);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " " + channelIndex + " of " + gate.ownerName() + " (partition "
                + partitionId + ", subpartition " + subpartitionIndex + ")";
    }
}
