package io.sluice.netty.gate;

import java.time.Duration;

/**
 * The delays between a channel's repeated requests for a partition that is not registered yet: the initial
 * backoff, doubled each time, capped at the maximum; one retry at the maximum, then no more.
 *
 * <p>Used by one channel under its request lock.
 */
final class PartitionRequestBackoff {

    private final long initialMillis;
    private final long maxMillis;
    /** 0 before the first retry; -1 once every retry was used. */
    private long currentMillis; // guarded by the owning channel's request lock
    private int retries; // guarded by the owning channel's request lock

    PartitionRequestBackoff(Duration initial, Duration max) {
        this.initialMillis = initial.toMillis();
        this.maxMillis = Math.max(initialMillis, max.toMillis());
    }

    /**
     * Moves to the next delay.
     *
     * @return false when the maximum was already reached: the partition is declared not found
     */
    boolean increase() {
        if (currentMillis < 0 || initialMillis <= 0) {
            currentMillis = -1;
            return false;
        }
        if (currentMillis == 0) {
            currentMillis = initialMillis;
        } else if (currentMillis < maxMillis) {
            currentMillis = Math.min(currentMillis * 2, maxMillis);
        } else {
            currentMillis = -1;
            return false;
        }
        retries++;
        return true;
    }

    /** The delay before the next retry, after a successful {@link #increase()}. */
    long currentMillis() {
        return currentMillis;
    }

    /** Retries granted so far. */
    int retries() {
        return retries;
    }

    String describe() {
        return "backoff from " + initialMillis + " ms to " + maxMillis + " ms (shuffle.partition-request.initial-backoff,"
                + " shuffle.partition-request.max-backoff), " + retries + " retries";
    }
}
