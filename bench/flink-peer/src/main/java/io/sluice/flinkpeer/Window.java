package io.sluice.flinkpeer;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * A measurement window over running threads: sleep through the warm-up, read the tallies, sleep through the
 * measured time, read them again. Also reads the process's CPU time, so a figure can say how many cores it used.
 * Used by a figure's main thread.
 */
final class Window {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    final long bytes;
    final long units;
    final double seconds;
    final double cpuCores;

    private Window(long bytes, long units, double seconds, double cpuCores) {
        this.bytes = bytes;
        this.units = units;
        this.seconds = seconds;
        this.cpuCores = cpuCores;
    }

    /** How long the first unit may take to arrive before the warm-up starts anyway (the figure then shows it). */
    private static final long FIRST_UNIT_TIMEOUT_MILLIS = 60_000;

    /**
     * Waits until the tallies count a first unit (the stack is set up and data flows: on a loaded machine that can
     * take longer than a short warm-up), sleeps {@code warmupSeconds}, then measures the tallies' growth over
     * {@code measureSeconds}.
     */
    static Window measure(List<Tally> tallies, double warmupSeconds, double measureSeconds)
            throws InterruptedException {
        long giveUp = System.nanoTime() + FIRST_UNIT_TIMEOUT_MILLIS * 1_000_000L;
        while (unitsOf(tallies) == 0 && System.nanoTime() < giveUp) {
            Thread.sleep(10);
        }
        Thread.sleep(millis(warmupSeconds));
        long bytes0 = bytesOf(tallies);
        long units0 = unitsOf(tallies);
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        Thread.sleep(millis(measureSeconds));
        long bytes1 = bytesOf(tallies);
        long units1 = unitsOf(tallies);
        long cpu1 = cpuNanos();
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Window(bytes1 - bytes0, units1 - units0, seconds, (cpu1 - cpu0) / 1e9 / seconds);
    }

    static long cpuNanos() {
        return OS.getProcessCpuTime();
    }

    static long millis(double seconds) {
        return Math.round(seconds * 1000);
    }

    double bytesPerSecond() {
        return bytes / seconds;
    }

    double unitsPerSecond() {
        return units / seconds;
    }

    private static long bytesOf(List<Tally> tallies) {
        long sum = 0;
        for (Tally tally : tallies) {
            sum += tally.bytes();
        }
        return sum;
    }

    private static long unitsOf(List<Tally> tallies) {
        long sum = 0;
        for (Tally tally : tallies) {
            sum += tally.units();
        }
        return sum;
    }
}
