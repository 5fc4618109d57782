package io.sluice.netty.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the promise of {@code shuffle.output.flush-interval} for one pipelined partition: no byte waits in a partly
 * filled buffer longer than the interval. Unlike a flush of every subpartition at every interval, which cuts each
 * buffer that is still filling at that moment, it flushes a subpartition only when the oldest byte waiting there has
 * waited the interval less one tick ({@link PipelinedSubpartition#flushIfDue}); a buffer that fills within the
 * interval goes whole. With many subpartitions a buffer takes most of an interval to fill, so a fixed flush would
 * send two part-full buffers where one full one would do, and every buffer sent costs both event loops a wake-up;
 * the JMH benchmark {@code ManyChannelsBenchmark.records} ({@code -p shape=1x1000}) is the case that shows it.
 *
 * <p>Ticks: one task on the environment's flush scheduler at a time, rescheduled after each tick for the earliest
 * deadline among the subpartitions, but never sooner than one tick ({@code interval / 10}, at least 1 ms, at most the
 * interval) nor later than the interval; a partition with nothing waiting ticks once per interval. A byte written at
 * {@code t} is then flushed at a tick in {@code [t + interval - tick, t + interval]} (plus the scheduler's lateness).
 * A tick reads one volatile field per subpartition and takes a subpartition's lock only when it is due.
 *
 * <p>Threads: {@link #start()} and {@link #stop()} from any thread (the partition's setup and release); ticks on the
 * scheduler's thread. A tick never blocks. After {@code stop()} returns no new tick starts (one already running
 * finishes, and its flushes are harmless on a released partition).
 */
final class PeriodicFlusher implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(PeriodicFlusher.class);

    /** Ticks per interval: a byte's flush comes at most a tenth of the interval before its deadline. */
    private static final int TICKS_PER_INTERVAL = 10;
    /** The shortest tick: sub-millisecond timer wake-ups would cost more than the flushes they save. */
    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Life cycle of the ticks. */
    private enum State {
        CREATED,
        TICKING,
        STOPPED
    }

    private final PipelinedSubpartition[] subpartitions;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier clock;
    private final long intervalNanos;
    private final long tickNanos;
    /** How long the oldest byte of a subpartition may wait before a tick flushes it: the interval less one tick. */
    private final long waitNanos;
    private final String partitionName;

    @GuardedBy("this")
    private State state = State.CREATED;
    @GuardedBy("this")
    private ScheduledFuture<?> nextTick;

    /**
     * @param subpartitions the partition's subpartitions (they stamp their bytes with {@code clock})
     * @param interval      the flush interval, positive
     * @param scheduler     the environment's flush scheduler
     * @param clock         nanoseconds, the partition's clock ({@link ResultPartition#nanoTime()})
     * @param partitionName for the log line when the scheduler refuses a tick
     */
    PeriodicFlusher(PipelinedSubpartition[] subpartitions, Duration interval, ScheduledExecutorService scheduler,
            LongSupplier clock, String partitionName) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("flush interval of " + partitionName + " must be positive, was "
                    + interval + " (zero flushes every record and needs no flusher)");
        }
        this.subpartitions = subpartitions;
        this.scheduler = scheduler;
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
        this.tickNanos = Math.min(intervalNanos, Math.max(MIN_TICK_NANOS, intervalNanos / TICKS_PER_INTERVAL));
        this.waitNanos = intervalNanos - tickNanos;
        this.partitionName = partitionName;
    }

    /**
     * Schedules the first tick one interval from now. Once.
     *
     * @throws RejectedExecutionException when the scheduler is shut down
     */
    synchronized void start() {
        if (state != State.CREATED) {
            throw new IllegalStateException("flusher of " + partitionName + " was already started (" + state + ")");
        }
        nextTick = scheduler.schedule(this, intervalNanos, TimeUnit.NANOSECONDS);
        state = State.TICKING;
    }

    /** No tick starts after this returns. Idempotent; any thread. */
    synchronized void stop() {
        state = State.STOPPED;
        if (nextTick != null) {
            nextTick.cancel(false);
            nextTick = null;
        }
    }

    /** One tick, on the scheduler's thread: flushes what is due and schedules the next tick. */
    @Override
    public void run() {
        long delay = flushDue(clock.getAsLong());
        synchronized (this) {
            if (state == State.TICKING) {
                scheduleNext(delay);
            }
        }
    }

    /**
     * Flushes every subpartition whose oldest waiting byte is due at {@code now}.
     *
     * @return nanoseconds until the next tick: until the earliest deadline left, within one tick and one interval
     */
    long flushDue(long now) {
        boolean anyWaiting = false;
        long earliest = 0;
        for (PipelinedSubpartition subpartition : subpartitions) {
            long due = subpartition.flushIfDue(now, waitNanos);
            if (due != PipelinedSubpartition.NOTHING_UNFLUSHED && (!anyWaiting || due - earliest < 0)) {
                earliest = due;
                anyWaiting = true;
            }
        }
        if (!anyWaiting) {
            return intervalNanos;
        }
        return Math.min(intervalNanos, Math.max(tickNanos, earliest - now));
    }

    /** The tick length: {@code interval / 10}, at least 1 ms, at most the interval. */
    long tickNanos() {
        return tickNanos;
    }

    @GuardedBy("this")
    private void scheduleNext(long delayNanos) {
        try {
            nextTick = scheduler.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The environment shuts its scheduler down only after releasing its partitions; a partition not yet
            // released then has no consumer left to flush to.
            state = State.STOPPED;
            nextTick = null;
            LOG.debug("Flush scheduler refused the next tick of {}; no more periodic flushes", partitionName, e);
        }
    }
}
