package io.sluice.flinkpeer;

/** How long a figure warms up and measures, in seconds; and the network buffer size both libraries use. */
final class Timing {

    /** Flink's and Sluice's default memory segment: 32 KiB. */
    static final int SEGMENT_BYTES = 32 * 1024;

    final double warmupSeconds;
    final double measureSeconds;

    Timing(double warmupSeconds, double measureSeconds) {
        if (!(warmupSeconds >= 0) || !(measureSeconds > 0)) {
            throw new IllegalArgumentException("warm-up must be >= 0 s and measurement > 0 s, got "
                    + warmupSeconds + " and " + measureSeconds);
        }
        this.warmupSeconds = warmupSeconds;
        this.measureSeconds = measureSeconds;
    }
}
