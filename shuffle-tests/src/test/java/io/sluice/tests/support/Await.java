package io.sluice.tests.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for something that must happen, failing with a description when it does not. The timeouts guard against
 * hangs; a test never checks how long something took. Stateless; any thread.
 */
public final class Await {

    /** How long "eventually" may take before a wait counts as a hang; far above any healthy latency. */
    public static final Duration EVENTUALLY = Duration.ofSeconds(30);

    /** Between two checks of a condition nobody signals: short, so a wait ends soon after the condition holds. */
    private static final long CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private Await() {
    }

    /**
     * Waits until {@code condition} holds, checking it every millisecond. For states nothing signals (a thread
     * parked, a flag of another component); prefer a future when there is one.
     *
     * @param condition checked on the calling thread
     * @param timeout when to give up
     * @param description what is awaited, for the failure message
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
}
