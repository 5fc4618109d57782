package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Test helper: waits for a condition that another thread makes true; fails (never hangs) after 20 s. */
final class Await {

    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    private Await() {
    }

    static void until(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("condition never became true: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200)); // polling interval, not a correctness wait
        }
    }
}
