package io.sluice.flink.cluster.job;

import org.apache.flink.api.common.functions.MapFunction;

import java.util.concurrent.locks.LockSupport;

/**
 * Passes values through, pausing a millisecond every {@code every} values: keeps a streaming job running long enough
 * for a test to take a checkpoint and kill a TaskManager in the middle of it. Task thread.
 */
public final class Throttle implements MapFunction<Long, Long> {

    private static final long serialVersionUID = 1L;
    private static final long PAUSE_NANOS = 1_000_000;

    private final int every;
    private transient int count;

    /** @param every values between pauses */
    public Throttle(int every) {
        this.every = every;
    }

    @Override
    public Long map(Long value) {
        if (++count % every == 0) {
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        return value;
    }
}
