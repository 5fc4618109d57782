package io.sluice.netty.gate;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.ResultSubpartitionView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An input channel whose producer lives in the same environment: it reads the subpartition's view directly, with
 * no network and no copy (the buffers it hands out are slices of the producer's buffers).
 *
 * <p>Data in flight for checkpoints: the channel holds nothing it received (the producer's subpartition already put
 * each priority event ahead of the data it overtook, which the producer persists), so it keeps the defaults of
 * {@link InputChannel}: the gate persists the data the consumer takes from it before its ending event.
 *
 * <p>Threads: {@link #getNextBuffer()} on the consumer thread; request retries on the environment's scheduler;
 * {@link #releaseAllResources()} on any thread. It never calls its gate while holding {@code requestLock}.
 */
final class LocalInputChannel extends InputChannel implements BufferAvailabilityListener {

    private static final Logger LOG = LoggerFactory.getLogger(LocalInputChannel.class);

    /** Life cycle of the channel's request. */
    private enum State {
        /** Not requested yet. */
        IDLE,
        /** Requested; the partition was not there and a retry is scheduled. */
        WAITING_FOR_PARTITION,
        /** Reading the view. */
        READING,
        /** Released. Terminal. */
        RELEASED
    }

    private final ResultPartitionManager partitionManager;
    private final ScheduledExecutorService retryScheduler;

    private final Object requestLock = new Object();
    @GuardedBy("requestLock")
    private final PartitionRequestBackoff backoff;
    @GuardedBy("requestLock")
    private State state = State.IDLE;
    @GuardedBy("requestLock")
    private ScheduledFuture<?> retry;
    private volatile ResultSubpartitionView view; // written under requestLock
    /**
     * Priority events the subpartition announced while {@link #view} was not published yet (it announces those
     * queued before the reader existed while it creates the view): the gate hears of them only once this channel
     * can hand them out, because its priority future promises that the next poll returns one.
     */
    @GuardedBy("requestLock")
    private int priorityEventsBeforeView;
    /** The buffer size the gate announced last, or 0: handed to the view once it exists. */
    private volatile int announcedBufferSize;

    LocalInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId, int subpartitionIndex,
                      ResultPartitionManager partitionManager, ScheduledExecutorService retryScheduler,
                      PartitionRequestBackoff backoff) {
        this(gate, channelIndex, partitionId, subpartitionIndex, subpartitionIndex, partitionManager, retryScheduler,
                backoff);
    }

    /** A channel reading the subpartitions {@code subpartitionIndex..lastSubpartitionIndex}, one after the other. */
    LocalInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId, int subpartitionIndex,
                      int lastSubpartitionIndex, ResultPartitionManager partitionManager,
                      ScheduledExecutorService retryScheduler, PartitionRequestBackoff backoff) {
        super(gate, channelIndex, partitionId, subpartitionIndex, lastSubpartitionIndex);
        this.partitionManager = partitionManager;
        this.retryScheduler = retryScheduler;
        this.backoff = backoff;
    }

    /** The view's backlog: finished data buffers the producer queued for this channel. */
    @Override
    int queuedBuffers() {
        ResultSubpartitionView current = view;
        return current == null || current.isReleased() ? 0 : current.getBacklog();
    }

    @Override
    void requestSubpartition() {
        synchronized (requestLock) {
            if (state == State.RELEASED || state == State.READING) {
                return;
            }
        }
        ResultSubpartitionView created;
        try {
            // Outside requestLock: creating the view may notify this channel, which calls into the gate.
            created = partitionManager.createSubpartitionView(partitionId, subpartitionIndex, lastSubpartitionIndex,
                    this);
        } catch (PartitionNotFoundException e) {
            scheduleRetryOrFail(e);
            return;
        } catch (ShuffleException | RuntimeException e) {
            setError(e);
            return;
        }
        boolean keep;
        int priorityEvents;
        synchronized (requestLock) {
            keep = state != State.RELEASED;
            if (keep) {
                view = created;
                state = State.READING;
            }
            priorityEvents = priorityEventsBeforeView;
            priorityEventsBeforeView = 0;
        }
        if (keep) {
            for (int i = 0; i < priorityEvents; i++) {
                super.notifyPriorityEvent();
            }
            int bufferSize = announcedBufferSize;
            if (bufferSize > 0) {
                // Announced before the view existed: the producer cuts its next buffers at that size.
                created.notifyNewBufferSize(bufferSize);
            }
            // A notification that came before the view was published found nothing to read: tell the gate again,
            // but only if there is something (data, an event, or a release to report), so that the gate's
            // availability future does not complete for nothing.
            if (created.isAvailable(1) || created.isReleased()) {
                notifyChannelNonEmpty();
            }
        } else {
            created.releaseAllResources();
        }
    }

    private void scheduleRetryOrFail(PartitionNotFoundException notFound) {
        boolean fail = false;
        String tried;
        synchronized (requestLock) {
            if (state == State.RELEASED) {
                return;
            }
            if (backoff.increase()) {
                state = State.WAITING_FOR_PARTITION;
                try {
                    retry = retryScheduler.schedule(this::requestSubpartition, backoff.currentMillis(),
                            TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    // The environment is closing.
                    fail = true;
                }
            } else {
                fail = true;
            }
            // The backoff is the request lock's: describe it here, not after unlocking.
            tried = fail ? backoff.describe() : null;
        }
        if (fail) {
            LOG.debug("Partition {} not found for {} after {}", partitionId, this, tried);
            setError(notFound);
        }
    }

    @Override
    BufferAndAvailability getNextBuffer() throws IOException {
        checkError();
        ResultSubpartitionView current = view;
        if (current == null) {
            return null;
        }
        BufferAndBacklog next = current.getNextBuffer();
        if (next == null) {
            if (current.isReleased() && !isReleased()) {
                Throwable cause = current.getFailureCause();
                if (cause instanceof CorruptDataException corrupt) {
                    // Its message names the partition, subpartition, file and offset; the producer did not fail.
                    throw corrupt;
                }
                throw producerFailure(cause);
            }
            return null;
        }
        return new BufferAndAvailability(next.buffer(), next.isDataAvailable(), next.buffersInBacklog(),
                next.isPriority());
    }

    private ProducerFailedException producerFailure(Throwable cause) {
        if (cause instanceof ProducerFailedException) {
            return (ProducerFailedException) cause;
        }
        String reason = cause == null
                ? "it was released before this channel read it to its end"
                : "its producer failed: " + cause.getMessage();
        ProducerFailedException failure = new ProducerFailedException("partition " + partitionId + " (subpartition "
                + subpartitionIndex + ", read by channel " + channelIndex + " of " + gate.ownerName() + ") is gone: "
                + reason);
        if (cause != null) {
            failure.initCause(cause);
        }
        return failure;
    }

    @Override
    void sendTaskEvent(ByteBuffer event) {
        partitionManager.publishTaskEvent(partitionId, event);
    }

    @Override
    void resumeConsumption() {
        ResultSubpartitionView current;
        synchronized (requestLock) {
            current = view;
        }
        if (current != null) {
            // The view tells this channel (notifyDataAvailable) when data behind the blocking event is readable.
            current.resumeConsumption();
        }
    }

    /** A direct call: the producer's subpartition reads the size when it starts its next buffer. */
    @Override
    void announceBufferSize(int bufferSize) {
        announcedBufferSize = bufferSize;
        ResultSubpartitionView current = view;
        if (current != null) {
            current.notifyNewBufferSize(bufferSize);
        }
    }

    @Override
    public void notifyDataAvailable() {
        notifyChannelNonEmpty();
    }

    /**
     * Public for {@link BufferAvailabilityListener}; InputChannel's protected method does the work, once the view is
     * published (see {@link #priorityEventsBeforeView}).
     */
    @Override
    public void notifyPriorityEvent() {
        synchronized (requestLock) {
            if (view == null && state != State.RELEASED) {
                priorityEventsBeforeView++;
                return;
            }
        }
        super.notifyPriorityEvent();
    }

    @Override
    void releaseAllResources() {
        ResultSubpartitionView toRelease;
        ScheduledFuture<?> pendingRetry;
        synchronized (requestLock) {
            if (state == State.RELEASED) {
                return;
            }
            state = State.RELEASED;
            toRelease = view;
            view = null;
            pendingRetry = retry;
            retry = null;
        }
        if (pendingRetry != null) {
            pendingRetry.cancel(false);
        }
        if (toRelease != null) {
            toRelease.releaseAllResources();
        }
    }

    @Override
    boolean isReleased() {
        synchronized (requestLock) {
            return state == State.RELEASED;
        }
    }
}
