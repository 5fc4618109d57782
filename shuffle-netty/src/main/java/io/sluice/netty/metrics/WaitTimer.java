package io.sluice.netty.metrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The total time one thread spent waiting (a producer for a buffer, a consumer for data), that also shows the wait
 * in progress: a producer blocked for a minute reads as blocked now, not only once it wakes.
 *
 * <p>Threads: {@link #begin()} and {@link #end} by the waiting thread, one at a time; {@link #totalNanos} by any
 * thread, without a lock. Cost: two volatile stores and one atomic add per wait, nothing when nobody waits. A
 * reader that samples between {@link #end}'s two stores may count the last wait twice or miss it for a moment;
 * rates derived from the total clamp to [0, 1000] ms/s.
 */
public final class WaitTimer {

    private final AtomicLong waitedNanos = new AtomicLong();
    /** {@link System#nanoTime()} when the wait in progress began, or 0 while nobody waits. */
    private volatile long waitingSince;

    /** The thread starts waiting. @return the start, for {@link #end} */
    public long begin() {
        long now = System.nanoTime();
        long start = now == 0 ? 1 : now;
        waitingSince = start;
        return start;
    }

    /** The wait that began at {@code start} ended. @return how long it lasted, in nanoseconds */
    public long end(long start) {
        long waited = System.nanoTime() - start;
        waitedNanos.addAndGet(waited);
        waitingSince = 0;
        return waited;
    }

    /** @return nanoseconds waited until {@code now} (a {@link System#nanoTime()}), the wait in progress included */
    public long totalNanos(long now) {
        long since = waitingSince;
        long total = waitedNanos.get();
        return since == 0 ? total : total + Math.max(0, now - since);
    }
}
