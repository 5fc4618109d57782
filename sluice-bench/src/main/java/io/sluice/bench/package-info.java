/**
 * {@code sluice-bench}, the demo shuffle and benchmark command line ({@code Main}): {@code run} (the default: several
 * environments in this process, every consumer reading every producer, every record verified), {@code serve} and
 * {@code consume} (the same across two processes), {@code chaos} (seeded fault injection), {@code latency} (the
 * one-way latency figure) and {@code jmh} (the benchmarks of {@code io.sluice.bench.jmh}). It uses only the public
 * API, as an engine would ({@code io.sluice.tests.support.Wiring}), and prints a summary table or JSON and a
 * PASS/FAIL verdict (exit status 0, 1, or 2 for a wrong command line).
 *
 * <p>One package per concern, each depending only on the ones after it:
 * <ul>
 *   <li>this package: {@code Main}, which parses, runs and prints;</li>
 *   <li>{@code command}: the picocli commands, their options and converters, and the checks of a command line;</li>
 *   <li>{@code run}: the runs ({@code run}, {@code run --partition-type blocking}, {@code serve}, {@code consume},
 *       {@code latency}), their producer and consumer tasks and what samples them while they go;</li>
 *   <li>{@code report}: what a run reports, as a table, JSON, or an HTML page with SVG charts;</li>
 *   <li>{@code options}: a checked command line and the names of its flags, which every other package reads.</li>
 * </ul>
 * {@code jmh} (the JMH benchmarks) uses {@code run}'s environments; {@code trace} (the per-hop table of a buffer
 * trace) stands alone. {@code BenchArchitectureTest} holds these rules.
 *
 * <p>Threads: the main thread parses the command line, runs the command and prints its summary; the threads of a
 * run are described in {@code io.sluice.bench.run}.
 */
package io.sluice.bench;
