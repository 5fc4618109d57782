package io.sluice.bench.report;

import java.util.List;

/**
 * Prints a {@link RunSummary} as one line of JSON for scripts. Times in seconds or microseconds,
 * sizes in bytes, rates per second. Stateless; any thread.
 */
public final class SummaryJson {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final double NANOS_PER_MICRO = 1e3;
    private static final double BYTES_PER_GB = 1e9;

    private SummaryJson() {
    }

    /**
     * @param summary the run's results
     * @return one JSON object and a newline
     */
    public static String format(RunSummary summary) {
        LatencySummary latency = summary.latency();
        MemoryPeak memory = summary.memory();
        JsonObject json = new JsonObject()
                .put("command", summary.command())
                .put("verdict", summary.passed() ? "PASS" : "FAIL")
                .put("failure", summary.failure())
                .put("shape", summary.shape())
                .put("producers", summary.producers())
                .put("consumers", summary.consumers())
                .put("channels", summary.channels())
                .put("recordSizes", summary.recordSizes())
                .put("bytes", summary.bytes())
                .put("records", summary.records())
                .put("wallSeconds", summary.wallNanos() / NANOS_PER_SECOND)
                .put("gigabytesPerSecond", summary.bytesPerSecond() / BYTES_PER_GB)
                .put("recordsPerSecond", summary.recordsPerSecond())
                .put("latencyMicros", new JsonObject()
                        .put("count", latency.count())
                        .put("p50", latency.p50() / NANOS_PER_MICRO)
                        .put("p99", latency.p99() / NANOS_PER_MICRO)
                        .put("p999", latency.p999() / NANOS_PER_MICRO)
                        .put("max", latency.max() / NANOS_PER_MICRO))
                .put("memory", new JsonObject()
                        .put("networkPeakBytes", memory.networkPeakBytes())
                        .put("networkTotalBytes", memory.networkTotalBytes())
                        .put("buffersInUseAtPeak", memory.buffersAtPeak())
                        .put("totalBuffers", memory.totalBuffers())
                        .put("directPeakBytes", memory.directPeakBytes())
                        .put("processPeakRssBytes", memory.processPeakRssBytes()))
                .put("buffersNotReturned", summary.buffersNotReturned());
        if (!summary.flow().samples().isEmpty()) {
            json.put("flow", flow(summary.flow()));
        }
        if (!summary.soak().samples().isEmpty()) { // a run shorter than --sample-interval has no soak series
            json.put("soak", soak(summary.soak()));
        }
        return json + "\n";
    }

    /**
     * Means and peaks of backpressure (ms per second, per writer) and pool usage (0..1), then the series, one array
     * per quantity, index i of each from sample i.
     */
    private static JsonObject flow(FlowSummary flow) {
        List<FlowSample> samples = flow.samples();
        long[] elapsedMillis = new long[samples.size()];
        double[] backpressure = new double[samples.size()];
        double[] outputUsage = new double[samples.size()];
        double[] inputUsage = new double[samples.size()];
        long[] queued = new long[samples.size()];
        double[] waiting = new double[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            FlowSample sample = samples.get(i);
            elapsedMillis[i] = Math.round(sample.elapsedNanos() / 1e6);
            backpressure[i] = sample.backpressuredMsPerSecond();
            outputUsage[i] = sample.outputPoolUsage();
            inputUsage[i] = sample.inputPoolUsage();
            queued[i] = sample.queuedInputBuffers();
            waiting[i] = sample.waitingForDataMsPerSecond();
        }
        return new JsonObject()
                .put("intervalMillis", FlowSummary.INTERVAL_MILLIS)
                .put("backpressuredMsPerSecondMean", flow.meanBackpressuredMsPerSecond())
                .put("backpressuredMsPerSecondPeak", flow.peakBackpressuredMsPerSecond())
                .put("outputPoolUsageMean", flow.meanOutputPoolUsage())
                .put("outputPoolUsagePeak", flow.peakOutputPoolUsage())
                .put("inputPoolUsageMean", flow.meanInputPoolUsage())
                .put("inputPoolUsagePeak", flow.peakInputPoolUsage())
                .put("waitingForDataMsPerSecondMean", flow.meanWaitingForDataMsPerSecond())
                .put("series", new JsonObject()
                        .put("elapsedMillis", elapsedMillis)
                        .put("backpressuredMsPerSecond", backpressure)
                        .put("outputPoolUsage", outputUsage)
                        .put("inputPoolUsage", inputUsage)
                        .put("queuedInputBuffers", queued)
                        .put("waitingForDataMsPerSecond", waiting));
    }

    /** The series, one array per quantity, index i of each from sample i; then the verdict of each. */
    private static JsonObject soak(SoakReport soak) {
        long[] elapsedSeconds = soak.series(sample -> Math.round(sample.elapsedNanos() / NANOS_PER_SECOND));
        JsonObject series = new JsonObject()
                .put("elapsedSeconds", elapsedSeconds)
                .put("directBytes", soak.series(ResourceSample::directBytes))
                .put("nettyDirectBytes", soak.series(ResourceSample::nettyDirectBytes))
                .put("heapAfterGcBytes", soak.series(ResourceSample::heapAfterGcBytes))
                .put("segmentsInUse", soak.series(sample -> sample.segmentsInUse()))
                .put("openConnections", soak.series(sample -> sample.openConnections()));
        JsonObject trends = new JsonObject();
        for (SeriesTrend trend : soak.trends()) {
            trends.put(trend.name(), new JsonObject()
                    .put("judged", trend.judged())
                    .put("flat", trend.flat())
                    .put("baseline", trend.baseline())
                    .put("laterMax", trend.laterMax())
                    .put("allowed", trend.allowed()));
        }
        return new JsonObject()
                .put("intervalSeconds", soak.interval().toMillis() / 1e3)
                .put("sampleCount", soak.samples().size())
                .put("series", series)
                .put("flatAfterWarmUp", trends)
                .put("allFlat", soak.allFlat());
    }
}
