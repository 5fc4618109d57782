/**
 * {@code sluice-bench}, the demo shuffle and benchmark command line ({@code Main}): {@code run} (the
 * default: several environments in this process, every consumer reading every producer, every record verified),
 * {@code serve} and {@code consume} (the same across two processes), and {@code jmh} (the benchmarks of
 * {@code io.sluice.bench.jmh}). It uses only the public API, as an engine would ({@code io.sluice.tests.support.Wiring}), and
 * prints a summary table or JSON and a PASS/FAIL verdict (exit status 0, 1, or 2 for a wrong command line).
 * picocli parses the command line ({@code BenchCli}): {@code SluiceBench} is the top command, each command a class
 * whose options come from mixins ({@code CommonOptions}, {@code ProducerOptions}, {@code ReceiverOptions}), sizes
 * and times go through the API's {@code ByteSizes} and {@code Durations}, and library options are checked by the
 * library's own validator and reported under their flags ({@code LibraryFlags}).
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The main thread parses the command line, builds the environments, writers and gates, starts the tasks and
 *       prints the summary.</li>
 *   <li>One thread per producer task and one per consumer task ({@code TaskGroup}): the first failure
 *       aborts the others.</li>
 *   <li>One monitor thread ({@code RunMonitor}) prints progress and samples memory; its results are
 *       read after it stopped.</li>
 *   <li>Counters shared between tasks and the monitor are atomic; everything else belongs to one thread.</li>
 * </ul>
 */
package io.sluice.bench;
