/**
 * A checked sluice-bench command line, as the runs and reports read it: which command ({@code Command}), with which
 * options ({@code BenchOptions}, {@code Workload}, {@code ServeTicket}, {@code ProgressMode}), and the names of the
 * flags ({@code Flags}, {@code LibraryFlags}), so that a message, a printed consume line and the parser cannot
 * disagree on a name.
 *
 * <p>Threads: immutable values and constants; any thread.
 */
package io.sluice.bench.options;
