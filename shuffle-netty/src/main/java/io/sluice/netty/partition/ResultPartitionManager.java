package io.sluice.netty.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.api.ResultPartitionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The registry of an environment's live result partitions: readers find partitions here, and a reader that asks
 * before its producer registered can leave a {@link PartitionRegistrationListener}.
 *
 * <p>Any thread; every map is guarded by {@code this}. Listeners and partitions are called with no lock held.
 */
public final class ResultPartitionManager {

    private static final Logger LOG = LoggerFactory.getLogger(ResultPartitionManager.class);

    @GuardedBy("this")
    private final Map<ResultPartitionId, RegisteredPartition> partitions = new HashMap<>();
    @GuardedBy("this")
    private final Map<ResultPartitionId, List<PartitionRegistrationListener>> awaiting = new HashMap<>();
    @GuardedBy("this")
    private boolean shutDown;
    /**
     * Why recently failed partitions went away, so that a reader asking after the failure learns of it instead of
     * waiting for a partition that will never come. Bounded: the oldest entries go first.
     */
    @GuardedBy("this")
    private final Map<ResultPartitionId, Throwable> recentFailures = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ResultPartitionId, Throwable> eldest) {
            return size() > MAX_REMEMBERED_FAILURES;
        }
    };

    /** Told of every partition released here (for the environment's metrics); null for nobody. */
    private volatile Consumer<RegisteredPartition> releaseObserver;

    /** Enough for every partition an environment fails in a burst; each entry is an id and an exception. */
    private static final int MAX_REMEMBERED_FAILURES = 1024;

    /**
     * Registers a set-up partition and hands it to the readers waiting for it. A waiting reader that cannot take it
     * (its connection's event loop has terminated: the environment is closing) is skipped and logged; it never
     * fails the registration.
     *
     * @throws ShuffleException      when the environment's close has begun ({@link #refuseRegistrations()}): nothing
     *                               is registered
     * @throws IllegalStateException when a partition with the same id is registered
     */
    public void registerPartition(RegisteredPartition partition) throws ShuffleException {
        List<PartitionRegistrationListener> waiting;
        synchronized (this) {
            if (shutDown) {
                throw new ShuffleException("cannot register partition " + partition.partitionId()
                        + ": the environment is closed");
            }
            RegisteredPartition previous = partitions.putIfAbsent(partition.partitionId(), partition);
            if (previous != null) {
                throw new IllegalStateException("partition " + partition.partitionId()
                        + " is already registered in this environment (" + previous + ")");
            }
            waiting = awaiting.remove(partition.partitionId());
        }
        if (waiting != null) {
            for (PartitionRegistrationListener listener : waiting) {
                try {
                    listener.onPartitionRegistered(partition);
                } catch (RuntimeException e) {
                    // The reader's connection is going away (e.g. RejectedExecutionException from its terminated
                    // event loop); its consumer learns of that from the connection. The producer is not at fault.
                    LOG.info("A reader waiting for partition {} could not take it: {}", partition.partitionId(),
                            e.toString());
                }
            }
        }
    }

    /**
     * Refuses every later registration ({@link #registerPartition} throws); the first step of the environment's
     * close, taken before the transport stops so that no registration meets a terminated event loop. Idempotent.
     */
    public synchronized void refuseRegistrations() {
        shutDown = true;
    }

    /**
     * Creates the reader view of a registered partition's subpartition.
     *
     * @throws PartitionNotFoundException when the partition is not registered (yet, or any more)
     * @throws ProducerFailedException     when the partition's producer failed it
     */
    public ResultSubpartitionView createSubpartitionView(ResultPartitionId partitionId, int subpartitionIndex,
                                                         BufferAvailabilityListener listener)
            throws ShuffleException {
        return createSubpartitionView(partitionId, subpartitionIndex, subpartitionIndex, listener);
    }

    /**
     * Creates one reader's view of the subpartitions {@code first..last} of a registered partition, read one after
     * the other ({@link RegisteredPartition#createSubpartitionRangeView}).
     *
     * @throws PartitionNotFoundException when the partition is not registered (yet, or any more)
     * @throws ProducerFailedException     when the partition's producer failed it
     * @throws ShuffleException            when the partition cannot serve a range
     */
    public ResultSubpartitionView createSubpartitionView(ResultPartitionId partitionId, int first, int last,
                                                         BufferAvailabilityListener listener)
            throws ShuffleException {
        RegisteredPartition partition;
        synchronized (this) {
            partition = partitions.get(partitionId);
            if (partition == null) {
                throw notRegistered(partitionId);
            }
        }
        return createView(partition, first, last, listener);
    }

    /**
     * Creates the view if the partition is registered; otherwise parks {@code registrationListener} until it is
     * and returns null. The caller removes a parked listener that waited too long with
     * {@link #removeRegistrationListener}.
     */
    public ResultSubpartitionView createSubpartitionViewOrRegisterListener(
            ResultPartitionId partitionId, int subpartitionIndex, BufferAvailabilityListener listener,
            PartitionRegistrationListener registrationListener) throws ShuffleException {
        return createSubpartitionViewOrRegisterListener(partitionId, subpartitionIndex, subpartitionIndex, listener,
                registrationListener);
    }

    /** {@link #createSubpartitionViewOrRegisterListener} for the subpartitions {@code first..last}. */
    public ResultSubpartitionView createSubpartitionViewOrRegisterListener(
            ResultPartitionId partitionId, int first, int last, BufferAvailabilityListener listener,
            PartitionRegistrationListener registrationListener) throws ShuffleException {
        RegisteredPartition partition;
        synchronized (this) {
            partition = partitions.get(partitionId);
            if (partition == null) {
                if (shutDown || recentFailures.containsKey(partitionId)) {
                    throw notRegistered(partitionId);
                }
                awaiting.computeIfAbsent(partitionId, id -> new ArrayList<>(1)).add(registrationListener);
                return null;
            }
        }
        return createView(partition, first, last, listener);
    }

    /** @return true when the listener was still parked (and is now removed). */
    public synchronized boolean removeRegistrationListener(ResultPartitionId partitionId,
                                                           PartitionRegistrationListener listener) {
        List<PartitionRegistrationListener> waiting = awaiting.get(partitionId);
        if (waiting == null || !waiting.remove(listener)) {
            return false;
        }
        if (waiting.isEmpty()) {
            awaiting.remove(partitionId);
        }
        return true;
    }

    /**
     * Hands a consumer's task event to the partition's producer.
     *
     * @return false when the partition is not registered here or has no task event listener
     */
    public boolean publishTaskEvent(ResultPartitionId partitionId, ByteBuffer event) {
        RegisteredPartition partition;
        synchronized (this) {
            partition = partitions.get(partitionId);
        }
        if (partition == null) {
            LOG.debug("Task event for partition {} dropped: the partition is not registered here", partitionId);
            return false;
        }
        return partition.deliverTaskEvent(event);
    }

    /** Releases the given partitions at once (their consumers fail). Unknown ids are ignored. */
    public void releasePartitions(Collection<ResultPartitionId> partitionIds, Throwable cause) {
        List<RegisteredPartition> toRelease = new ArrayList<>(partitionIds.size());
        synchronized (this) {
            for (ResultPartitionId id : partitionIds) {
                RegisteredPartition partition = partitions.get(id);
                if (partition != null) {
                    toRelease.add(partition);
                }
            }
        }
        for (RegisteredPartition partition : toRelease) {
            partition.release(cause);
        }
    }

    /** Releases every partition and refuses new ones; for the environment's close. */
    public void shutdown(Throwable cause) {
        List<RegisteredPartition> toRelease;
        synchronized (this) {
            shutDown = true;
            toRelease = new ArrayList<>(partitions.values());
            awaiting.clear();
        }
        for (RegisteredPartition partition : toRelease) {
            partition.release(cause);
        }
    }

    /** The ids of the partitions registered now. */
    public synchronized Collection<ResultPartitionId> registeredPartitionIds() {
        return new ArrayList<>(partitions.keySet());
    }

    /** Called by a partition when it is released; {@code cause} is the producer's failure, or null. */
    public void onPartitionReleased(RegisteredPartition partition, Throwable cause) {
        synchronized (this) {
            if (partitions.remove(partition.partitionId(), partition) && cause != null) {
                recentFailures.put(partition.partitionId(), cause);
            }
        }
        Consumer<RegisteredPartition> observer = releaseObserver;
        if (observer != null) {
            observer.accept(partition);
        }
    }

    /**
     * Sets who is told, with no lock held, on the releasing thread, of each partition released here, registered or
     * not (the environment, to drop the partition's meters). Must not block.
     */
    public void setReleaseObserver(Consumer<RegisteredPartition> observer) {
        this.releaseObserver = observer;
    }

    /** The failure to report for an id that is not registered: the producer's, if it failed, else not found. */
    @GuardedBy("this")
    private ShuffleException notRegistered(ResultPartitionId partitionId) {
        Throwable failure = recentFailures.get(partitionId);
        if (failure == null) {
            return new PartitionNotFoundException(partitionId);
        }
        if (failure instanceof ProducerFailedException producerFailed) {
            return new ProducerFailedException(producerFailed.getMessage(), producerFailed);
        }
        return new ProducerFailedException("the producer of partition " + partitionId + " failed: " + failure,
                failure);
    }

    private static ResultSubpartitionView createView(RegisteredPartition partition, int first, int last,
                                                     BufferAvailabilityListener listener)
            throws ShuffleException {
        try {
            return first == last ? partition.createSubpartitionView(first, listener)
                    : partition.createSubpartitionRangeView(first, last, listener);
        } catch (IllegalStateException e) {
            if (partition.isReleased()) {
                // Released between the lookup and the view: to the reader it is gone.
                throw new PartitionNotFoundException(partition.partitionId());
            }
            throw e;
        }
    }
}
