package io.sluice.bench.report;

import io.sluice.bench.options.Command;

/** Prints a {@link RunSummary} as a table for people, ending with the verdict line. Stateless; any thread. */
public final class SummaryTable {

    /** Width of the label column. */
    private static final int LABEL_WIDTH = 24;

    private SummaryTable() {
    }

    /**
     * @param summary the run's results
     * @return the table and the verdict, each line ending with a newline
     */
    public static String format(RunSummary summary) {
        StringBuilder text = new StringBuilder();
        text.append("sluice-bench ").append(summary.command()).append(": ").append(summary.shape()).append('\n');
        if (summary.wallNanos() == 0) { // failed before any task started: there is nothing to measure
            return text.append(summary.verdict()).append('\n').toString();
        }
        row(text, "records", Units.count(summary.records()) + " on " + summary.channels() + " channels ("
                + summary.producers() + " x " + summary.consumers() + "), sizes " + summary.recordSizes());
        row(text, "data volume", Units.gigabytes(summary.bytes()) + " (" + Units.mebibytes(summary.bytes()) + ")");
        row(text, "wall time", Units.seconds(summary.wallNanos()));
        row(text, "throughput", String.format(java.util.Locale.ROOT, "%.2f GB/s, %s records/s",
                summary.bytesPerSecond() / 1e9, Units.count(Math.round(summary.recordsPerSecond()))));
        LatencySummary latency = summary.latency();
        if (latency.count() > 0) {
            row(text, "latency p50/p99/p99.9", Units.latency(latency.p50()) + " / " + Units.latency(latency.p99()) + " / "
                    + Units.latency(latency.p999()) + " (max " + Units.latency(latency.max()) + ")");
        } else if (summary.command().equals(Command.SERVE.word())) {
            row(text, "latency", "measured by the consumer");
        } else {
            row(text, "latency", "not measured (no records, or producer on another host)");
        }
        MemoryPeak memory = summary.memory();
        row(text, "network memory peak", Units.mebibytes(memory.networkPeakBytes()) + " of "
                + Units.mebibytes(memory.networkTotalBytes()) + " (" + Units.count(memory.buffersAtPeak()) + " of "
                + Units.count(memory.totalBuffers()) + " buffers in use)");
        row(text, "JVM direct memory peak", Units.mebibytes(memory.directPeakBytes()));
        if (memory.processPeakRssBytes() >= 0) {
            row(text, "process peak RSS", Units.mebibytes(memory.processPeakRssBytes()));
        }
        FlowSummary flow = summary.flow();
        if (!flow.samples().isEmpty()) {
            row(text, "backpressure", String.format(java.util.Locale.ROOT,
                    "%.0f ms/s mean per writer, peak %.0f ms/s (blocked waiting for buffers)",
                    flow.meanBackpressuredMsPerSecond(), flow.peakBackpressuredMsPerSecond()));
            row(text, "output pool usage", String.format(java.util.Locale.ROOT, "%.0f%% mean, peak %.0f%%",
                    100 * flow.meanOutputPoolUsage(), 100 * flow.peakOutputPoolUsage()));
            row(text, "input pool usage", String.format(java.util.Locale.ROOT, "%.0f%% mean, peak %.0f%%",
                    100 * flow.meanInputPoolUsage(), 100 * flow.peakInputPoolUsage()));
            row(text, "consumer wait", String.format(java.util.Locale.ROOT,
                    "%.0f ms/s mean per gate (waiting for data)", flow.meanWaitingForDataMsPerSecond()));
        }
        SoakReport soak = summary.soak();
        if (!soak.samples().isEmpty()) {
            row(text, "soak samples", soak.samples().size() + ", one every " + Units.seconds(soak.interval().toNanos()));
            for (SeriesTrend trend : soak.trends()) {
                row(text, "  " + trend.name(), trend.describe());
            }
        }
        text.append(summary.verdict()).append('\n');
        return text.toString();
    }

    private static void row(StringBuilder text, String label, String value) {
        text.append("  ").append(label).append(" ".repeat(Math.max(1, LABEL_WIDTH - label.length()))).append(value).append('\n');
    }
}
