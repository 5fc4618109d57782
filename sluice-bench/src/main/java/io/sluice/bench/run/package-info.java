/**
 * The runs of sluice-bench: {@code LocalRun} (producers and consumers in this process; {@code BlockingRun} for
 * {@code --partition-type blocking}), {@code ServeRun} and {@code ConsumeRun} (the two processes), and
 * {@code OneWayLatency} ({@code latency}). Each builds its {@code Environments}, writers and gates through the public
 * API, runs producer and consumer tasks under {@code MeasuredRun}, verifies every record ({@code DeliveryCheck}) and
 * returns an {@code io.sluice.bench.report.RunSummary}; a failure of any kind is in the summary, never thrown.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The main thread builds the environments, writers and gates, starts the tasks and waits for them.</li>
 *   <li>One thread per producer task and one per consumer task ({@code TaskGroup}): the first failure
 *       aborts the others.</li>
 *   <li>One monitor thread ({@code RunMonitor}) prints progress and samples memory, flow and resources; its results
 *       are read after it stopped.</li>
 *   <li>Counters shared between tasks and the monitor are atomic; everything else belongs to one thread.</li>
 * </ul>
 */
package io.sluice.bench.run;
