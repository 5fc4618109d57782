package io.sluice.bench.run;

import io.sluice.api.GateMetrics;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.WriterMetrics;
import io.sluice.bench.report.FlowSample;
import io.sluice.bench.report.FlowSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples the writers' backpressure and the pools' usage of every environment of a run, every
 * {@link FlowSummary#INTERVAL_MILLIS} ms, into {@link FlowSample}s: the series a report charts over time, and the means and
 * peaks of the summary. Rates come from the growth of each writer's and gate's cumulative wait counter since the
 * previous sample; a writer or gate that appeared meanwhile counts from zero, one that went away is left out.
 *
 * <p>{@link #sample()} is called by the monitor thread only; {@link #summary()} after the monitor stopped (its
 * shutdown orders the writes before the read).
 */
final class FlowSampler {

    private final List<ShuffleEnvironment> environments;
    private final long startNanos;
    private final List<FlowSample> samples = new ArrayList<>(); // monitor thread only
    private Map<ResultPartitionId, Long> lastBackpressured = new HashMap<>(); // monitor thread only
    private Map<String, Long> lastWaiting = new HashMap<>(); // monitor thread only
    private long lastSampleNanos; // monitor thread only

    /**
     * @param environments the environments to watch
     * @param startNanos   {@link System#nanoTime()} when the run started
     */
    FlowSampler(List<ShuffleEnvironment> environments, long startNanos) {
        this.environments = List.copyOf(environments);
        this.startNanos = startNanos;
        this.lastSampleNanos = startNanos;
    }

    /** Takes one sample. */
    void sample() {
        long now = System.nanoTime();
        long interval = now - lastSampleNanos;
        if (interval <= 0) {
            return;
        }
        Map<ResultPartitionId, Long> backpressured = new HashMap<>();
        Map<String, Long> waiting = new HashMap<>();
        long backpressureGrowth = 0;
        long waitingGrowth = 0;
        int outputUsed = 0;
        int outputSize = 0;
        int inputUsed = 0;
        int inputSize = 0;
        int queued = 0;
        long recordsOut = 0;
        for (ShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.metrics();
            for (WriterMetrics writer : metrics.writers()) {
                backpressured.put(writer.partitionId(), writer.backpressuredNanos());
                backpressureGrowth += writer.backpressuredNanos()
                        - lastBackpressured.getOrDefault(writer.partitionId(), 0L);
                outputUsed += writer.outputBuffersInUse();
                outputSize += writer.outputPoolSize();
                recordsOut += writer.recordsOut();
            }
            for (GateMetrics gate : metrics.gates()) {
                String key = environment.resourceId().value() + "/" + gate.ownerName();
                waiting.put(key, gate.waitingForDataNanos());
                waitingGrowth += gate.waitingForDataNanos() - lastWaiting.getOrDefault(key, 0L);
                inputUsed += gate.exclusiveBuffersInUse() + gate.floatingBuffersInUse();
                inputSize += gate.exclusiveBuffers() + gate.floatingBuffers();
                queued += gate.queuedBuffers();
            }
        }
        samples.add(new FlowSample(now - startNanos, msPerSecond(backpressureGrowth, backpressured.size(), interval),
                ratio(outputUsed, outputSize), ratio(inputUsed, inputSize), queued,
                msPerSecond(waitingGrowth, waiting.size(), interval), recordsOut));
        lastBackpressured = backpressured;
        lastWaiting = waiting;
        lastSampleNanos = now;
    }

    /** @return the samples so far with their means and peaks */
    FlowSummary summary() {
        return new FlowSummary(samples);
    }

    /** The mean rate per waiter: {@code growth} nanoseconds of {@code waiters} over {@code interval}, in ms/s. */
    private static double msPerSecond(long growth, int waiters, long interval) {
        if (waiters == 0) {
            return 0;
        }
        return Math.max(0, Math.min(1000, growth * 1000.0 / waiters / interval));
    }

    private static double ratio(int used, int size) {
        return size == 0 ? 0 : Math.min(1, (double) used / size);
    }
}
