package io.sluice.netty.metrics;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.function.LongSupplier;

/**
 * A cumulative nanosecond counter read as milliseconds per second since the previous read: what a gauge shows as
 * Flink's {@code backPressuredTimeMsPerSecond}. The first read covers the time since construction.
 *
 * <p>Threads: any; reads are serialized on {@code this}. Two readers sampling the same instance split the interval
 * between them, so give each reader (each meter registry) its own instance.
 */
public final class RateSinceLastRead {

    private final LongSupplier totalNanos;
    @GuardedBy("this")
    private long lastTotal;
    @GuardedBy("this")
    private long lastRead;

    /** @param totalNanos the cumulative counter, in nanoseconds */
    public RateSinceLastRead(LongSupplier totalNanos) {
        this.totalNanos = totalNanos;
        this.lastTotal = totalNanos.getAsLong();
        this.lastRead = System.nanoTime();
    }

    /** @return milliseconds counted per second since the previous read, in [0, 1000] */
    public synchronized double msPerSecond() {
        long now = System.nanoTime();
        long total = totalNanos.getAsLong();
        long elapsed = now - lastRead;
        if (elapsed <= 0) {
            return 0;
        }
        double rate = (total - lastTotal) * 1000.0 / elapsed;
        lastTotal = total;
        lastRead = now;
        return Math.max(0, Math.min(1000, rate));
    }
}
