package io.sluice.netty.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true, and fails (never hangs) after {@link #LIMIT_SECONDS}.
 * For conditions that offer no future or latch to wait on, such as a thread's state.
 *
 * <p>Stateless; any thread.
 */
public final class Await {

    /** Far above any healthy wait in these tests, far below the 120 s test timeout. */
    public static final long LIMIT_SECONDS = 20;

    /** How often the condition is checked; a polling interval, not a correctness wait. */
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private Await() {
    }

    /** Returns once {@code condition} holds; fails the test with {@code what} after the limit. */
    public static void until(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("condition never became true within " + LIMIT_SECONDS + " s: " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Returns once {@code thread} is parked or waiting (for example blocked on a buffer pool). */
    public static void blocked(Thread thread) {
        until(() -> {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || state == Thread.State.BLOCKED;
        }, thread.getName() + " blocks");
    }
}
