package io.sluice.tests.chaos;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Totals over many seeds, to show what the faults did: seeds run and failed by the shape of their job (pipelined,
 * some or all partitions blocking, a large gate), faults that hit by kind and the kinds that hit the failed seeds,
 * and how the tasks ended (completed, or the exception type they failed with as documented). One thread.
 */
public final class ChaosTally {

    private long seeds;
    private long failed;
    private long nanos;
    private long leaks;
    private final Map<FaultKind, Long> hits = new EnumMap<>(FaultKind.class);
    private final Map<FaultKind, Long> failedHits = new EnumMap<>(FaultKind.class);
    private final Map<String, Long> shapes = new TreeMap<>();
    private final Map<String, Long> failedShapes = new TreeMap<>();
    private final Map<String, Long> endings = new TreeMap<>();

    /** @param result one seed's result */
    public void add(ChaosResult result) {
        seeds++;
        nanos += result.nanos();
        String shape = shape(result.scenario());
        shapes.merge(shape, 1L, Long::sum);
        if (!result.passed()) {
            failed++;
            failedShapes.merge(shape, 1L, Long::sum);
            Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
            for (Fault fault : result.fired()) {
                kinds.add(fault.kind());
            }
            for (FaultKind kind : kinds) {
                failedHits.merge(kind, 1L, Long::sum);
            }
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

    private static String shape(ChaosScenario scenario) {
        if (scenario.largeGate()) {
            return "large gate";
        }
        if (scenario.allBlocking()) {
            return "all blocking";
        }
        return scenario.anyBlocking() ? "some blocking" : "pipelined";
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
        text.append("seeds by job: ").append(shapes).append(", failed: ").append(failedShapes).append('\n');
        text.append("faults that hit: ").append(hits).append('\n');
        text.append("faults that hit failed seeds (seeds per kind): ").append(failedHits).append('\n');
        text.append("tasks: ").append(endings).append('\n');
        return text.toString();
    }
}
