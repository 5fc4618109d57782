package io.sluice.netty.partition;

import io.sluice.netty.metrics.WriterCounters;
import io.sluice.api.EventDeliveryListener;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What every result partition of an environment shares, pipelined ({@link ResultPartition}) or blocking
 * (sort-merge): its identity and owner, the environment's partition manager and pool factory, the task events its
 * consumers send upstream, the output counters, and the argument checks of the writer's methods. Subclasses own the
 * life cycle, the buffers and the readers.
 *
 * <p>Threads: the identity is immutable; the task event listener is a volatile reference (set by the producer,
 * called on whatever thread delivers the event: a connection's event loop or a local consumer); the counters are
 * atomics, written by the producer thread and read by any.
 */
public abstract class AbstractResultPartition implements ResultPartitionWriter, RegisteredPartition {

    private static final Logger LOG = LoggerFactory.getLogger(AbstractResultPartition.class);

    protected final ResultPartitionId partitionId;
    protected final String ownerName;
    protected final int subpartitionCount;
    protected final ResultPartitionManager partitionManager;
    protected final PartitionBufferPoolFactory poolFactory;

    private volatile Consumer<ByteBuffer> taskEventListener;
    private final AtomicLong bytesOut = new AtomicLong();
    private final AtomicLong buffersOut = new AtomicLong();
    /** Records out and the producer's waits for buffers, for {@code metrics()}. */
    protected final WriterCounters counters = new WriterCounters();

    /**
     * @throws IllegalArgumentException with fewer than one subpartition
     */
    protected AbstractResultPartition(ResultPartitionId partitionId, String ownerName, int numberOfSubpartitions,
                                      ResultPartitionManager partitionManager,
                                      PartitionBufferPoolFactory poolFactory) {
        if (numberOfSubpartitions < 1) {
            throw new IllegalArgumentException("partition " + partitionId + " needs at least one subpartition, got "
                    + numberOfSubpartitions);
        }
        this.partitionId = Objects.requireNonNull(partitionId, "partitionId");
        this.ownerName = ownerName;
        this.subpartitionCount = numberOfSubpartitions;
        this.partitionManager = partitionManager;
        this.poolFactory = poolFactory;
    }

    @Override
    public final ResultPartitionId partitionId() {
        return partitionId;
    }

    @Override
    public final int numberOfSubpartitions() {
        return subpartitionCount;
    }

    @Override
    public final void onTaskEvent(Consumer<ByteBuffer> listener) {
        this.taskEventListener = listener;
    }

    /**
     * Hands a consumer's task event to the producer's listener.
     *
     * @return false when no listener was registered (the event is then dropped, and logged)
     */
    @Override
    public final boolean deliverTaskEvent(ByteBuffer event) {
        Consumer<ByteBuffer> listener = taskEventListener;
        if (listener == null) {
            LOG.warn("Task event of {} bytes for {} dropped: the producer registered no listener "
                    + "(ResultPartitionWriter.onTaskEvent)", event.remaining(), this);
            return false;
        }
        listener.accept(event);
        return true;
    }

    /** Bytes written into buffers so far, framing included. */
    @Override
    public final long bytesOut() {
        return bytesOut.get();
    }

    /** Buffers finished so far. */
    @Override
    public final long buffersOut() {
        return buffersOut.get();
    }

    /** Counts one finished buffer of {@code bytes} bytes. Producer thread. */
    protected final void countBuffer(int bytes) {
        bytesOut.addAndGet(bytes);
        buffersOut.incrementAndGet();
    }

    /** Throws {@link IndexOutOfBoundsException} naming the partition when {@code index} is no subpartition. */
    protected final void checkSubpartitionIndex(int index) {
        if (index < 0 || index >= subpartitionCount) {
            throw new IndexOutOfBoundsException("partition " + partitionId + " has " + subpartitionCount
                    + " subpartitions; subpartition " + index + " does not exist");
        }
    }

    /** The same check for a reader's request: {@link IllegalArgumentException}, as the partition manager expects. */
    protected final void checkRequestedSubpartition(int index) {
        if (index < 0 || index >= subpartitionCount) {
            throw new IllegalArgumentException("partition " + partitionId + " has " + subpartitionCount
                    + " subpartitions; subpartition " + index + " does not exist");
        }
    }

    /** Throws when an event exceeds {@link ResultPartitionWriter#MAX_EVENT_BYTES}. */
    protected final void checkEventSize(ByteBuffer event) throws ShuffleException {
        int size = event.remaining();
        if (size > MAX_EVENT_BYTES) {
            throw new ShuffleException("event of " + size + " bytes for " + this + " exceeds the limit of "
                    + MAX_EVENT_BYTES + " bytes per event (ResultPartitionWriter.MAX_EVENT_BYTES); send large data "
                    + "as records");
        }
    }

    /**
     * Tells a tracked event's listener an outcome on this thread, with no lock held; what it throws is logged (it is
     * the engine's code, and the event's fate does not change).
     */
    protected static void tellDeliveryHere(EventDeliveryListener listener, int subpartition,
                                           EventDeliveryListener.Outcome outcome) {
        try {
            listener.delivered(subpartition, outcome);
        } catch (RuntimeException e) {
            LOG.error("The delivery listener of a tracked event threw when told {} for subpartition {}", outcome,
                    subpartition, e);
        }
    }
}
