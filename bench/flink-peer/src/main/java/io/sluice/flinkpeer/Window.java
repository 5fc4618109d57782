package io.sluice.flinkpeer;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

/**
 * A measurement window over running threads: sleep through the warm-up, read the tallies, sleep through the
 * measured time, read them again. Also reads the process's CPU time, so a figure can say how many cores it used,
 * and each thread's, so it can say where that CPU went per unit ({@link ThreadRoleCpu}). Used by a figure's main
 * thread.
 */
final class Window {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    final long bytes;
    final long units;
    final double seconds;
    final double cpuCores;
    /** CPU nanoseconds per unit by thread role over the window (empty when thread CPU is not measurable). */
    final Map<String, Double> cpuNanosPerUnit;

    private Window(long bytes, long units, double seconds, double cpuCores, Map<String, Double> cpuNanosPerUnit) {
        this.bytes = bytes;
        this.units = units;
        this.seconds = seconds;
        this.cpuCores = cpuCores;
        this.cpuNanosPerUnit = cpuNanosPerUnit;
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
        ThreadRoleCpu threads0 = ThreadRoleCpu.snapshot();
        long t0 = System.nanoTime();
        Thread.sleep(millis(measureSeconds));
        long bytes1 = bytesOf(tallies);
        long units1 = unitsOf(tallies);
        long cpu1 = cpuNanos();
        ThreadRoleCpu threads1 = ThreadRoleCpu.snapshot();
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Window(bytes1 - bytes0, units1 - units0, seconds, (cpu1 - cpu0) / 1e9 / seconds,
                threads1.nanosPerUnitSince(threads0, units1 - units0));
    }

    static long cpuNanos() {
        return OS.getProcessCpuTime();
    }

    static long millis(double seconds) {
        return Math.round(seconds * 1000);
    }

    /**
     * Adds the CPU per unit to {@code line}: {@code cpu_ns=TOTAL} and {@code cpu_ns_ROLE=...} for each role of
     * {@link ThreadRoleCpu#ROLES}, the keys bench/jmh-to-lines.py gives Sluice's figures; nothing when thread CPU
     * was not measured.
     */
    FigureLine withCpuPerUnit(FigureLine line) {
        if (cpuNanosPerUnit.isEmpty()) {
            return line;
        }
        double total = 0;
        for (double nanos : cpuNanosPerUnit.values()) {
            total += nanos;
        }
        line.with("cpu_ns", total, 1);
        for (Map.Entry<String, Double> role : cpuNanosPerUnit.entrySet()) {
            line.with("cpu_ns_" + role.getKey(), role.getValue(), 1);
        }
        return line;
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
