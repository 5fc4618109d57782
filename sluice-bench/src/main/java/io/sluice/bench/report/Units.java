package io.sluice.bench.report;

import java.util.Locale;

/**
 * Prints quantities for people: decimal GB (10^9, as the throughput figures use), binary MiB for
 * memory, durations and latencies with a fitting unit, counts with thousands separators.
 * Stateless; any thread.
 */
public final class Units {

    private static final double GB = 1e9;
    private static final double MIB = 1024.0 * 1024.0;
    private static final double NANOS_PER_SECOND = 1e9;

    private Units() {
    }

    /** @return e.g. {@code 4.29 GB} */
    public static String gigabytes(long bytes) {
        return String.format(Locale.ROOT, "%.2f GB", bytes / GB);
    }

    /** @return e.g. {@code 41.2 MiB} */
    static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / MIB);
    }

    /** @return e.g. {@code 1.52 GB/s}; 0 for an empty interval */
    public static String gigabytesPerSecond(long bytes, long nanos) {
        return String.format(Locale.ROOT, "%.2f GB/s", perSecond(bytes, nanos) / GB);
    }

    /** @return the rate per second; 0 for an empty interval */
    static double perSecond(long amount, long nanos) {
        return nanos <= 0 ? 0 : amount * NANOS_PER_SECOND / nanos;
    }

    /** @return e.g. {@code 1,234,567} */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** @return e.g. {@code 12.34 s}, {@code 850 ms} */
    public static String seconds(long nanos) {
        if (nanos < 1_000_000_000L) {
            return String.format(Locale.ROOT, "%d ms", nanos / 1_000_000L);
        }
        return String.format(Locale.ROOT, "%.2f s", nanos / NANOS_PER_SECOND);
    }

    /** @return e.g. {@code 0:42} (minutes:seconds), for an ETA */
    public static String clock(long nanos) {
        long s = Math.max(0, nanos / 1_000_000_000L);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    /** @return e.g. {@code 812 us}, {@code 4.1 ms}, {@code 1.25 s} */
    static String latency(long nanos) {
        if (nanos < 1_000_000L) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        if (nanos < 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    /** @return the size in the largest binary unit that divides it, as the options take it, e.g. {@code 64m} */
    public static String byteSize(long bytes) {
        String[] units = {"t", "g", "m", "k"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (units.length - i));
            if (bytes >= unit && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return String.valueOf(bytes);
    }
}
