package io.sluice.bench.run;

import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.LibraryFlags;
import io.sluice.bench.options.Workload;
import io.sluice.bench.report.FlowSummary;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.MemoryPeak;
import io.sluice.bench.report.ReportSeries;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.SoakReport;
import io.sluice.bench.report.Units;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What every command shares once its tasks exist: runs them under the progress line and the
 * memory sampler, waits (with the timeout), then checks that every network buffer came back.
 * Used by the main thread.
 */
final class MeasuredRun {

    /** What happens after the tasks ended and before the clock stops, e.g. waiting for a remote consumer. */
    interface Epilogue {

        /**
         * @param deadlineNanos {@link System#nanoTime()} by which it must be done
         * @return why it failed, or null
         * @throws InterruptedException when interrupted while waiting
         */
        Throwable await(long deadlineNanos) throws InterruptedException;
    }

    /**
     * How a run went. Immutable value.
     *
     * @param failure the first failure, or null
     * @param wallNanos from the start of the tasks to the end of the epilogue
     * @param memory the memory peaks
     * @param buffersNotReturned network buffers still in use after everything closed
     * @param soak the soak samples taken during the run
     * @param flow the backpressure and pool usage samples taken during the run
     * @param series the time series for {@code --report}
     */
    record Outcome(Throwable failure, long wallNanos, MemoryPeak memory, int buffersNotReturned, SoakReport soak,
                   FlowSummary flow, ReportSeries series) {

        /**
         * The outcome of a run that failed before its tasks ended: nothing measured. An interrupt is kept in the
         * thread's interrupt status, since the failure goes into a summary rather than up the stack.
         *
         * @param failure what went wrong
         * @return the outcome
         */
        static Outcome failed(Exception failure) {
            if (failure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return new Outcome(failure, 0, MemoryPeak.NONE, 0, SoakReport.NONE, FlowSummary.NONE, ReportSeries.NONE);
        }

        /**
         * @param command the command word
         * @param shape producers, consumers, environments and transport, in words
         * @param producers producer tasks (consume: partitions read)
         * @param consumers consumer tasks (serve: subpartitions per partition)
         * @param recordSizes the record size distribution, or "-" where unknown
         * @param bytes bytes of records moved
         * @param records records moved
         * @param latency per-record latency, or {@link LatencySummary#NONE}
         * @return the summary of the run with this outcome
         */
        RunSummary summary(Command command, String shape, int producers, int consumers, String recordSizes,
                           long bytes, long records, LatencySummary latency) {
            return new RunSummary(command.word(), shape, producers, consumers, recordSizes, bytes, records, wallNanos,
                    latency, memory, buffersNotReturned, failure == null ? null : describe(failure), soak, flow,
                    series);
        }
    }

    /** Releases after the last close may finish on other threads; this long they may take. */
    private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);

    private MeasuredRun() {
    }

    /**
     * @param options the command line
     * @param err where progress goes
     * @param environments the environments the tasks use
     * @param tasks the producers and consumers
     * @param bytesDone bytes moved so far, for the progress line; read by the monitor thread
     * @param epilogue what to wait for after the tasks, or null
     * @return how it went
     * @throws InterruptedException when interrupted while waiting
     */
    static Outcome execute(BenchOptions options, PrintStream err, Environments environments,
                           List<TaskGroup.Task> tasks, LongSupplier bytesDone, Epilogue epilogue)
            throws InterruptedException {
        return execute(options, options.workload(), err, environments, tasks, bytesDone, epilogue);
    }

    /** As {@link #execute(BenchOptions, PrintStream, Environments, List, LongSupplier, Epilogue)}, for {@code workload}
     * (the progress line's total) rather than the command line's. */
    static Outcome execute(BenchOptions options, Workload workload, PrintStream err, Environments environments,
                           List<TaskGroup.Task> tasks, LongSupplier bytesDone, Epilogue epilogue)
            throws InterruptedException {
        long segmentSize = options.shuffleConfig().get(ShuffleOptions.MEMORY_SEGMENT_SIZE);
        long start = System.nanoTime();
        long deadline = start + options.timeout().toNanos();
        ProgressPrinter printer = new ProgressPrinter(err, options.progress().resolve(), bytesDone, workload, start);
        SoakRecorder soak = new SoakRecorder(new ResourceSampler(environments), err, start, options.sampleInterval());
        ReportSeries series = new ReportSeries(bytesDone, environments::segmentsInUse, environments::totalSegments,
                new WriterBackpressure(environments.all()), start);
        RunMonitor monitor = new RunMonitor(printer, new MemorySampler(environments.all(), segmentSize), soak,
                new FlowSampler(environments.all(), start), series);
        TaskGroup group = new TaskGroup(tasks);
        Throwable failure;
        long end;
        try {
            group.start();
            failure = group.await(options.timeout(), () -> Units.gigabytes(bytesDone.getAsLong()) + " moved by then");
            if (failure == null && epilogue != null) {
                failure = epilogue.await(deadline);
            }
            end = System.nanoTime();
        } finally {
            monitor.close();
        }
        int notReturned = environments.awaitBuffersReturned(RELEASE_GRACE);
        if (failure == null && notReturned > 0) {
            failure = new IllegalStateException(notReturned + " network buffers still in use after every writer and gate"
                    + " closed and every partition was consumed (" + environments.describeSegmentsInUse() + ")");
        }
        return new Outcome(failure, end - start, monitor.peak(), notReturned, monitor.soak(), monitor.flow(),
                monitor.series());
    }

    /**
     * @param failure any failure of a run
     * @return one line for the verdict: the failure and its causes, with command-line options next to library keys
     */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        text.append(failure.getClass().getSimpleName()).append(": ").append(failure.getMessage());
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            if (text.indexOf(message) < 0) { // a wrapper often repeats its cause's message
                text.append("; caused by ").append(cause.getClass().getSimpleName()).append(": ").append(message);
            }
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            text.append("; also: ").append(suppressed.getMessage());
        }
        return LibraryFlags.withOptionHints(text.toString().replace('\n', ' '));
    }
}
