package io.sluice.bench.report;

import io.sluice.bench.options.Command;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The page {@code sluice-bench --report FILE.html} writes: the run's summary and four SVG charts (throughput over
 * time, latency percentiles, network-buffer pool usage over time, writer backpressure over time). Self-contained: no
 * script, no stylesheet or font from elsewhere, so it opens offline and can be attached to an issue. The markup is
 * well-formed XML (XHTML syntax), which the tests check with an XML parser. Stateless; any thread.
 */
public final class HtmlReport {

    /** The {@code data-series} names of the four charts, in page order. */
    static final String THROUGHPUT = "throughput";
    static final String LATENCY = "latency-percentiles";
    static final String POOL_USAGE = "pool-usage";
    static final String BACKPRESSURE = "backpressure";

    private HtmlReport() {
    }

    /**
     * @param summary the run
     * @param file where to write the page; its directory must exist
     * @throws IOException when the file cannot be written
     */
    public static void write(RunSummary summary, Path file) throws IOException {
        Files.writeString(file, format(summary), StandardCharsets.UTF_8);
    }

    /**
     * @param summary the run
     * @return the page
     */
    static String format(RunSummary summary) {
        ReportSeries series = summary.series();
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head>")
            .append("<meta charset=\"utf-8\"/><title>sluice-bench ").append(SvgChart.escape(summary.command()))
            .append(" report</title><style>")
            .append("body{font-family:sans-serif;margin:24px;color:#1f2328;max-width:760px}")
            .append("table{border-collapse:collapse;margin-bottom:16px}td{padding:2px 12px 2px 0}")
            .append("td:first-child{color:#57606a}.pass{color:#1a7f37}.fail{color:#d1242f}")
            .append("section{margin:18px 0}p.note{color:#57606a;font-size:13px;margin:4px 0}")
            .append("</style></head><body>\n");
        html.append("<h1>sluice-bench ").append(SvgChart.escape(summary.command())).append("</h1>\n");
        html.append("<p class=\"").append(summary.passed() ? "pass" : "fail").append("\">")
            .append(SvgChart.escape(summary.verdict())).append("</p>\n<table>");
        row(html, "shape", summary.shape());
        row(html, "record sizes", summary.recordSizes());
        row(html, "records", Units.count(summary.records()));
        row(html, "data volume", Units.gigabytes(summary.bytes()));
        row(html, "wall time", Units.seconds(summary.wallNanos()));
        row(html, "throughput", String.format(Locale.ROOT, "%.3f GB/s (10^9 bytes), %s records/s",
                summary.bytesPerSecond() / 1e9, Units.count(Math.round(summary.recordsPerSecond()))));
        html.append("</table>\n");

        int points = series.size();
        double[] seconds = new double[points];
        double[] throughput = new double[points];
        double[] pool = new double[points];
        double[] blocked = new double[points];
        for (int i = 0; i < points; i++) {
            seconds[i] = series.seconds(i);
            throughput[i] = series.gigabytesPerSecond(i);
            pool[i] = series.poolUsagePercent(i);
            blocked[i] = series.backpressuredMsPerSecond(i);
        }
        String noPoints = "no samples: the run ended before the first one (every "
                + ReportSeries.INTERVAL_MILLIS + " ms)";

        section(html, "throughput", points == 0 ? SvgChart.empty("Throughput over time", THROUGHPUT, noPoints)
                : SvgChart.line("Throughput over time", "seconds since start", "GB/s",
                        seconds, new String[] {THROUGHPUT}, new double[][] {throughput}),
                "Bytes of records " + (summary.command().equals(Command.SERVE.word()) ? "sent" : "verified")
                        + " per second, between two samples.");

        LatencySummary latency = summary.latency();
        boolean millis = latency.max() >= 10_000_000; // microseconds up to 10 ms, then milliseconds
        double unit = millis ? 1e6 : 1e3;
        section(html, "latency", latency.count() == 0
                ? SvgChart.empty("Latency percentiles", LATENCY, "no latency measured (serve, or another host's clock)")
                : SvgChart.bars("Latency percentiles", millis ? "milliseconds" : "microseconds", LATENCY,
                        new String[] {"p50", "p99", "p99.9", "max"},
                        new double[] {latency.p50() / unit, latency.p99() / unit, latency.p999() / unit,
                                latency.max() / unit}),
                "Per record, from generation to verification, over " + Units.count(latency.count())
                        + " records (HdrHistogram, within 1%).");

        section(html, "pool-usage", points == 0 ? SvgChart.empty("Network buffer pool usage", POOL_USAGE, noPoints)
                : SvgChart.line("Network buffer pool usage", "seconds since start", "% of buffers in use",
                        seconds, new String[] {POOL_USAGE}, new double[][] {pool}),
                "Network buffers in use over every environment of this process (ShuffleMetrics), as a share of all.");

        section(html, "backpressure", points == 0 || !series.backpressureMeasured()
                ? SvgChart.empty("Writer backpressure", BACKPRESSURE,
                        "not measured: no writer metrics were read")
                : SvgChart.line("Writer backpressure", "seconds since start", "ms blocked per second",
                        seconds, new String[] {BACKPRESSURE}, new double[][] {blocked}),
                "Time the writers spent blocked waiting for a buffer, per writer, per second.");
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void row(StringBuilder html, String name, String value) {
        html.append("<tr><td>").append(SvgChart.escape(name)).append("</td><td>").append(SvgChart.escape(value))
            .append("</td></tr>");
    }

    private static void section(StringBuilder html, String id, String svg, String note) {
        html.append("<section id=\"").append(id).append("\">").append(svg).append("<p class=\"note\">")
            .append(SvgChart.escape(note)).append("</p></section>\n");
    }
}
