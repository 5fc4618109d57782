package io.sluice.tests.transport;

import java.time.Duration;

/**
 * A promise with a moment it must be kept by, such as "every channel fails within five seconds of the close": each
 * wait for one part of it gets only the time that is left. Immutable; any thread.
 */
final class Deadline {

    private final Duration promised;
    private final long endNanos;

    private Deadline(Duration promised, long endNanos) {
        this.promised = promised;
        this.endNanos = endNanos;
    }

    /** @return the deadline {@code promised} from now */
    static Deadline in(Duration promised) {
        return new Deadline(promised, System.nanoTime() + promised.toNanos());
    }

    /** @return the time left, zero once it has passed */
    Duration remaining() {
        return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
    }

    @Override
    public String toString() {
        return promised.toMillis() + " ms";
    }
}
