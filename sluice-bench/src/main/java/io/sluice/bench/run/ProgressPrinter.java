package io.sluice.bench.run;

import io.sluice.bench.options.ProgressMode;
import io.sluice.bench.options.Workload;
import io.sluice.bench.report.Units;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress line on stderr: percent, bytes, current GB/s and ETA. On a terminal one line is
 * rewritten in place; otherwise a new line is printed at each tick. Called by the monitor thread
 * only; {@link #finish()} after the monitor stopped.
 */
final class ProgressPrinter {

    /** Terminal refresh: fast enough to look live, slow enough to cost nothing. */
    static final Duration TTY_INTERVAL = Duration.ofMillis(250);
    /** Plain lines: often enough to show life in a log, rare enough not to flood it. */
    static final Duration PLAIN_INTERVAL = Duration.ofSeconds(2);

    private static final String CLEAR_TO_END = "\u001b[K";

    private final PrintStream err;
    private final ProgressMode mode;
    private final LongSupplier bytesDone;
    private final long totalBytes;      // 0 when the run is timed
    private final long durationNanos;   // 0 when the run counts bytes
    private final long startNanos;
    private long lastBytes;             // monitor thread only
    private long lastNanos;             // monitor thread only
    private boolean printedInPlace;     // monitor thread only

    /**
     * @param err where to print
     * @param mode TTY, PLAIN or OFF (resolved)
     * @param bytesDone bytes moved so far; read from the monitor thread
     * @param workload what the run moves: bytes or a duration
     * @param startNanos {@link System#nanoTime()} when the run started
     */
    ProgressPrinter(PrintStream err, ProgressMode mode, LongSupplier bytesDone, Workload workload, long startNanos) {
        this.err = err;
        this.mode = mode;
        this.bytesDone = bytesDone;
        this.totalBytes = workload.timed() ? 0 : workload.totalBytes();
        this.durationNanos = workload.timed() ? workload.duration().toNanos() : 0;
        this.startNanos = startNanos;
        this.lastNanos = startNanos;
    }

    /** @return how often {@link #tick} should run, or null when nothing is printed */
    Duration interval() {
        return switch (mode) {
            case TTY -> TTY_INTERVAL;
            case PLAIN -> PLAIN_INTERVAL;
            default -> null;
        };
    }

    /** Prints the current state. */
    void tick() {
        long now = System.nanoTime();
        long bytes = bytesDone.getAsLong();
        String line = line(bytes, now);
        lastBytes = bytes;
        lastNanos = now;
        if (mode == ProgressMode.TTY) {
            err.print("\r" + line + CLEAR_TO_END);
            printedInPlace = true;
        } else {
            err.println("progress " + line.trim());
        }
        err.flush();
    }

    /** Ends the in-place line so the summary starts on a fresh one. */
    void finish() {
        if (printedInPlace) {
            err.print("\r" + CLEAR_TO_END);
            err.flush();
        }
    }

    /**
     * @param bytes bytes moved by now
     * @param now the current {@link System#nanoTime()}
     * @return e.g. {@code " 37%  1.59 / 4.29 GB  1.71 GB/s  ETA 0:02"}
     */
    String line(long bytes, long now) {
        long elapsed = now - startNanos;
        String rate = Units.gigabytesPerSecond(bytes - lastBytes, now - lastNanos);
        double fraction;
        long remainingNanos;
        String amount;
        if (durationNanos > 0) {
            fraction = (double) elapsed / durationNanos;
            remainingNanos = durationNanos - elapsed;
            amount = Units.gigabytes(bytes);
        } else {
            fraction = (double) bytes / totalBytes;
            double averageRate = elapsed > 0 ? (double) bytes / elapsed : 0;
            remainingNanos = averageRate > 0 ? (long) ((totalBytes - bytes) / averageRate) : -1;
            amount = String.format(Locale.ROOT, "%.2f / %s", bytes / 1e9, Units.gigabytes(totalBytes));
        }
        String eta = remainingNanos >= 0 ? Units.clock(remainingNanos) : "-:--";
        return String.format(Locale.ROOT, "%3d%%  %s  %s  ETA %s",
                (int) Math.min(100, Math.round(fraction * 100)), amount, rate, eta);
    }
}
