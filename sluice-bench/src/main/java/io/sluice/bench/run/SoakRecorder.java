package io.sluice.bench.run;

import io.sluice.bench.report.ResourceSample;
import io.sluice.bench.report.SoakReport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Takes a soak sample every interval, prints it as a line and keeps the series for the summary.
 * {@link #sample()} is called by the monitor thread only; {@link #report()} after the monitor
 * stopped (its shutdown orders the writes before the read).
 */
final class SoakRecorder {

    private final ResourceSampler sampler;
    private final PrintStream err;
    private final long startNanos;
    private final Duration interval;
    private final List<ResourceSample> samples = new ArrayList<>(); // monitor thread only

    /**
     * @param sampler what to sample
     * @param err where each sample's line goes
     * @param startNanos {@link System#nanoTime()} at the start of the run
     * @param interval how often {@link #sample()} is called
     */
    SoakRecorder(ResourceSampler sampler, PrintStream err, long startNanos, Duration interval) {
        this.sampler = sampler;
        this.err = err;
        this.startNanos = startNanos;
        this.interval = interval;
    }

    /** @return how often to sample */
    Duration interval() {
        return interval;
    }

    /** Takes one sample and prints its line. */
    void sample() {
        ResourceSample sample = sampler.sample(System.nanoTime() - startNanos);
        samples.add(sample);
        err.println(SoakReport.line(samples.size(), sample));
    }

    /** @return the series so far */
    SoakReport report() {
        return new SoakReport(interval, samples);
    }
}
