package io.sluice.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for something that must happen, failing with a description when it does not, or checks over a window that
 * something does not happen ({@link #holdsThroughout}). The timeouts guard against
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

    /**
     * The window of a negative check ({@link #holdsThroughout}): long enough for data or a completion that is wrongly
     * not held back to show up. A correct component passes however short it is; it gives a wrong one time to fail.
     */
    public static final Duration NEGATIVE_CHECK_WINDOW = Duration.ofMillis(300);

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

    /**
     * Checks that {@code condition} holds, again and again for {@link #NEGATIVE_CHECK_WINDOW}, failing as soon as it
     * does not: the form of a check that something must not happen (nothing arrives, nothing completes), for which
     * there is no event to wait for.
     *
     * @param condition checked on the calling thread, every 200 µs; may throw (a poll of a gate), which ends the check
     * @param what what must stay true, for the failure message
     * @throws AssertionError the first time the condition does not hold
     * @throws Exception what the condition threw
     */
    public static void holdsThroughout(Callable<Boolean> condition, String what) throws Exception {
        long end = System.nanoTime() + NEGATIVE_CHECK_WINDOW.toNanos();
        while (true) {
            if (!condition.call()) {
                throw new AssertionError(what);
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            LockSupport.parkNanos(CHECK_INTERVAL_NANOS);
        }
    }
}
