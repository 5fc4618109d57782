/**
 * The command line of sluice-bench, parsed by picocli ({@code BenchCli}): {@code SluiceBench} is the top command,
 * each command a class whose options come from mixins ({@code CommonOptions}, {@code ProducerOptions},
 * {@code ReceiverOptions}); sizes and times go through the API's {@code ByteSizes} and {@code Durations}, and
 * library options are checked by the library's own validator and reported under their flags. A command that moves
 * records turns its options into a checked {@code io.sluice.bench.options.BenchOptions}; {@code chaos} and
 * {@code latency} run themselves. A wrong command line is a {@code UsageException} whose message names the option,
 * the value and how to write it instead.
 *
 * <p>Threads: everything here runs on the main thread (picocli fills the options, then {@code Main} reads them).
 */
package io.sluice.bench.command;
