package io.sluice.bench.report;

import java.util.List;

/**
 * The flow figures of a run, from its {@link FlowSample}s: the mean and peak of backpressure and pool usage, for
 * the summary table and {@code --json}; the samples themselves for charts. Immutable value.
 *
 * @param samples the samples in order, one every {@link #INTERVAL_MILLIS} ms
 */
public record FlowSummary(List<FlowSample> samples) {

    /** How often a run samples the flow: fine enough for a chart, cheap next to the run. */
    public static final long INTERVAL_MILLIS = 100;

    /** No sampling happened (the run failed before its tasks started). */
    public static final FlowSummary NONE = new FlowSummary(List.of());

    /** Copies the samples. */
    public FlowSummary {
        samples = List.copyOf(samples);
    }

    /** @return the mean over the samples of the writers' backpressure, ms per second */
    double meanBackpressuredMsPerSecond() {
        return mean(FlowSample::backpressuredMsPerSecond);
    }

    /** @return the highest backpressure of a sample, ms per second */
    public double peakBackpressuredMsPerSecond() {
        return peak(FlowSample::backpressuredMsPerSecond);
    }

    /** @return the mean output pool usage, 0..1 */
    double meanOutputPoolUsage() {
        return mean(FlowSample::outputPoolUsage);
    }

    /** @return the highest output pool usage of a sample, 0..1 */
    double peakOutputPoolUsage() {
        return peak(FlowSample::outputPoolUsage);
    }

    /** @return the mean input pool usage, 0..1 */
    double meanInputPoolUsage() {
        return mean(FlowSample::inputPoolUsage);
    }

    /** @return the highest input pool usage of a sample, 0..1 */
    double peakInputPoolUsage() {
        return peak(FlowSample::inputPoolUsage);
    }

    /** @return the mean over the samples of the consumers' wait for data, ms per second */
    double meanWaitingForDataMsPerSecond() {
        return mean(FlowSample::waitingForDataMsPerSecond);
    }

    private double mean(java.util.function.ToDoubleFunction<FlowSample> figure) {
        double sum = 0;
        for (FlowSample sample : samples) {
            sum += figure.applyAsDouble(sample);
        }
        return samples.isEmpty() ? 0 : sum / samples.size();
    }

    private double peak(java.util.function.ToDoubleFunction<FlowSample> figure) {
        double peak = 0;
        for (FlowSample sample : samples) {
            peak = Math.max(peak, figure.applyAsDouble(sample));
        }
        return peak;
    }
}
