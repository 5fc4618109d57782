package io.sluice.tests.chaos;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Totals over many seeds, to show what the faults did: seeds run and failed, faults that hit by kind, and how the
 * tasks ended (completed, or the exception type they failed with as documented). One thread.
 */
public final class ChaosTally {

    private long seeds;
    private long failed;
    private long nanos;
    private long leaks;
    private final Map<FaultKind, Long> hits = new EnumMap<>(FaultKind.class);
    private final Map<String, Long> endings = new TreeMap<>();

    /** @param result one seed's result */
    public void add(ChaosResult result) {
        seeds++;
        nanos += result.nanos();
        if (!result.passed()) {
            failed++;
        }
        for (Fault fault : result.fired()) {
            hits.merge(fault.kind(), 1L, Long::sum);
        }
        for (TaskOutcome task : result.outcome()) {
            String ending = !task.ended() ? "stuck"
                    : task.error() == null ? "completed" : "failed with " + task.error().getClass().getSimpleName();
            endings.merge((task.producer() ? "producers " : "consumers ") + ending, 1L, Long::sum);
        }
    }

    /** Counts a leak check that found Netty leak reports. */
    public void addLeak() {
        leaks++;
    }

    /** @return leak checks that found leaks */
    public long leaks() {
        return leaks;
    }

    /** @return seeds added */
    public long seeds() {
        return seeds;
    }

    /** @return seeds that failed */
    public long failed() {
        return failed;
    }

    /** @return a few lines: the faults that hit by kind, the tasks' endings */
    public String summary() {
        StringBuilder text = new StringBuilder();
        text.append(seeds).append(" seeds, ").append(failed).append(" failed, ").append(leaks)
                .append(" leak checks with leaks, ")
                .append(String.format("%.1f", nanos / 1e9)).append(" s in runs\n");
        text.append("faults that hit: ").append(hits).append('\n');
        text.append("tasks: ").append(endings).append('\n');
        return text.toString();
    }
}
