/**
 * What a sluice-bench run reports ({@code RunSummary}: volume, throughput, latency, memory, flow and soak samples,
 * the verdict) and its three forms: a table for people ({@code SummaryTable}), one line of JSON for scripts
 * ({@code SummaryJson}), and a self-contained HTML page with SVG charts ({@code HtmlReport}, {@code SvgChart}).
 *
 * <p>Threads: immutable values and stateless formatters, any thread; {@code ReportSeries} is filled by a run's
 * monitor thread and read after it stopped.
 */
package io.sluice.bench.report;
