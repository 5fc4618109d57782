package io.sluice.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for something that must happen, failing with a description when it does not. The timeouts guard against
 * hangs; a test never checks how long something took. For states nothing signals (a thread parked, a counter of
 * another component); prefer a future or a latch when there is one.
 *
 * <p>Stateless; any thread.
 */
public final class Await {

    /**
     * How long "eventually" may take before a wait counts as a hang: far above any healthy latency, far below the
     * build's 120 s test timeout.
     */
    public static final Duration EVENTUALLY = Duration.ofSeconds(30);

    /** Between two checks of a condition nobody signals: short, so a wait ends soon after the condition holds. */
    private static final long CHECK_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private Await() {
    }

    /**
     * Waits until {@code condition} holds, for at most {@link #EVENTUALLY}.
     *
     * @param condition checked on the calling thread
     * @param what what is awaited, for the failure message
     * @throws AssertionError when the condition does not hold in time
     */
    public static void until(BooleanSupplier condition, String what) {
        until(condition, EVENTUALLY, () -> what);
    }

    /**
     * Waits until {@code condition} holds, checking it every 200 µs.
     *
     * @param condition checked on the calling thread
     * @param timeout when to give up
     * @param description what is awaited, for the failure message; asked only on failure
     * @throws AssertionError when the condition does not hold within {@code timeout}
     */
    public static void until(BooleanSupplier condition, Duration timeout, Supplier<String> description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Not within " + timeout.toMillis() + " ms: " + description.get());
            }
            LockSupport.parkNanos(CHECK_INTERVAL_NANOS);
        }
    }

    /**
     * Waits until {@code thread} is parked, waiting or blocked on a monitor (for example on a buffer pool).
     *
     * @throws AssertionError when it is not within {@link #EVENTUALLY}
     */
    public static void blocked(Thread thread) {
        until(() -> {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || state == Thread.State.BLOCKED;
        }, thread.getName() + " blocks");
    }
}
