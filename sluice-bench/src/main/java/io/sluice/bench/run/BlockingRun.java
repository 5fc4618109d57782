package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.PartitionType;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.Workload;
import io.sluice.bench.report.FlowSample;
import io.sluice.bench.report.FlowSummary;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.MemoryPeak;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.SoakReport;
import io.sluice.bench.report.Units;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code run --partition-type blocking}: first {@code dd} measures what the temp directory's disk can do, for
 * comparison; then, unless {@code --warmup-bytes 0}, a smaller set of blocking partitions is written and read in
 * rounds, unmeasured, until the JIT compiler has settled ({@link #warmUp}), so that the measured phases run compiled
 * code (a JVM compiles the read path only once reading starts, and on two vCPUs the compiler then takes a large share
 * of a read phase of a few GB); then the producers write the
 * measured blocking partitions to disk (the write phase, timed) and the consumers read them (the read phase, timed).
 * Every record of both rounds is verified. Producers on the first environment, consumers on the last (the same with
 * one). Used by the main thread.
 */
final class BlockingRun {

    private final BenchOptions options;
    private final PrintStream err;

    BlockingRun(BenchOptions options, PrintStream err) {
        this.options = options;
        this.err = err;
    }

    /** @return the summary of both phases; a failure of any kind is in it, never thrown */
    RunSummary execute() {
        ShuffleConfig config = options.shuffleConfig();
        try {
            // First, on a quiet disk: dd's limits of the temp directory, for comparison.
            err.println("measuring the temp directory with dd");
            long requested = options.workload().totalBytes();
            // dd writes and reads at most 1 GiB: enough for a steady rate, short enough to run before every bench.
            long probeBytes = Math.min(requested > 0 ? requested : 1L << 30, 1L << 30);
            Path directory = tmpDir(config);
            DiskLimits before = DiskLimits.measure(directory, probeBytes);
            // A run larger than the probe is also set against dd writing as much, through the page cache.
            double volumeWriteBefore = requested > probeBytes ? DiskLimits.bufferedWriteOf(directory, requested) : 0;
            try (RunShuffle shuffle = RunShuffle.start(config, RunShuffle.contexts(config, options.environments()))) {
                if (options.warmUpBytes() > 0) {
                    Phases failed = warmUp(shuffle);
                    if (failed != null) {
                        return summary(failed, before);
                    }
                }
                Phases phases = writeThenRead(shuffle, options.workload(), "", directory);
                if (phases.failure() != null) {
                    return summary(phases, before);
                }
                DiskLimits limits = aroundTheRound(before, directory, probeBytes);
                double volumeWrite = volumeWriteBefore > 0
                        ? (volumeWriteBefore + DiskLimits.bufferedWriteOf(directory, requested)) / 2 : 0;
                return summary(phases, limits, volumeWrite);
            }
        } catch (Exception e) {
            MeasuredRun.Outcome none = MeasuredRun.Outcome.failed(e);
            return summary(new Phases(none, none, 0, 0, 0), null);
        }
    }

    /**
     * dd once more, right after the measured read, and the limits the phases are set against: the mean of that and
     * {@code before} (measured before the warm-up, minutes earlier). A virtual machine's disk can change speed from
     * minute to minute, so one measurement minutes away from the read says little about the disk the read had; both
     * are printed, so the drift shows.
     */
    private DiskLimits aroundTheRound(DiskLimits before, Path directory, long probeBytes)
            throws IOException, InterruptedException {
        err.println("measuring the temp directory with dd again, after the read phase");
        DiskLimits after = DiskLimits.measure(directory, probeBytes);
        err.print("dd before the run:\n" + before.describe() + "dd after the read phase:\n" + after.describe());
        return before.meanWith(after);
    }

    /**
     * The unmeasured warm-up: rounds of {@code --warmup-bytes} written and read exactly as the measured round will
     * be (same environments, connections, shapes, record sizes and checks), until a round in which the JIT compiler
     * worked less than {@link JitActivity#SETTLED_PERCENT}% of the round's time, or {@code --warmup-rounds} of them.
     * Why rounds and not one longer round: each round starts with the messages and paths of a new read (partition
     * requests, new views and readers) that C2 saw only before it had profiled the steady state; a later round's
     * start deoptimizes the code compiled without them and recompiles it. A JVM that does not report compile time
     * runs every round.
     *
     * @return the failed round, or null when the warm-up succeeded
     */
    private Phases warmUp(RunShuffle shuffle) throws Exception {
        Workload measured = options.workload();
        Workload warmUp = new Workload(measured.sizes(), options.warmUpBytes(), null, measured.seed(), null);
        JitActivity jit = new JitActivity();
        for (int round = 1; round <= options.warmUpRounds(); round++) {
            long compileBefore = jit.compileMillis();
            long start = System.nanoTime();
            Phases phases = writeThenRead(shuffle, warmUp, "warm-up " + round + " ", null);
            long roundNanos = System.nanoTime() - start;
            long compileMillis = jit.compileMillis() - compileBefore;
            if (phases.failure() != null) {
                return phases;
            }
            boolean settled = jit.monitored() && JitActivity.settled(compileMillis, roundNanos);
            boolean last = settled || round == options.warmUpRounds();
            err.println(String.format(Locale.ROOT, "warm-up %s %d (unmeasured): write %s, read %s, JIT compiled "
                            + "%d ms in %d ms%s", last ? "done after round" : "round", round,
                    DiskLimits.rate(phases.writeRate()), DiskLimits.rate(phases.readRate()),
                    compileMillis, roundNanos / 1_000_000, settled ? " (settled)" : ""));
            if (settled) {
                break;
            }
        }
        return null;
    }

    /**
     * Writes {@code workload} into new blocking partitions (the write phase), reads them with a consumer per
     * subpartition (the read phase) and releases them; {@code label} starts each phase's progress line. With a
     * {@code flushDirectory}, the written data goes to disk between the phases, untimed ({@link DiskLimits#flush}):
     * the read phase then has the disk and the CPUs to itself, as dd's read had.
     */
    private Phases writeThenRead(RunShuffle shuffle, Workload workload, String label, Path flushDirectory)
            throws Exception {
        int producers = options.producers();
        int consumers = options.consumers();
        Environments environments = shuffle.environments();
        ShuffleEnvironment producerEnvironment = environments.get(0);
        ShuffleEnvironment consumerEnvironment = environments.get(options.environments() - 1);
        RunShuffle.Partitions partitions = shuffle.produce(producers, consumers, PartitionType.BLOCKING,
                p -> producerEnvironment);
        ProducerSide producerSide = new ProducerSide(partitions.writers(), workload);
        err.println(label + "write phase: " + producers + " producers write " + consumers + " subpartitions each");
        MeasuredRun.Outcome write = MeasuredRun.execute(options, workload, err, environments, producerSide.tasks(),
                producerSide::bytes, null);
        long written = producerSide.bytes();
        if (write.failure() != null) {
            return new Phases(write, write, 0, 0, 0);
        }
        if (flushDirectory != null) {
            long flushNanos = DiskLimits.flush(flushDirectory);
            err.println(String.format(Locale.ROOT, "%swrite-back: the written data reached the disk in %.2f s (sync "
                    + "-f, untimed), so that the read phase does not share the disk and CPUs with it", label,
                    flushNanos / 1e9));
        }
        List<InputGate> gates = shuffle.consume(consumers, partitions.descriptors(), c -> consumerEnvironment);
        ConsumerSide consumerSide = new ConsumerSide(gates, producers);
        err.println(label + "read phase: " + consumers + " consumers read their subpartition of every partition");
        MeasuredRun.Outcome read = MeasuredRun.execute(options, workload, err, environments, consumerSide.tasks(),
                consumerSide::bytes, null);
        producerEnvironment.releasePartitionsLocally(partitions.ids());
        return new Phases(write, read, written, consumerSide.bytes(), consumerSide.records());
    }

    /** The outcome of one {@link #writeThenRead}: the read is the write when the write failed. */
    private record Phases(MeasuredRun.Outcome write, MeasuredRun.Outcome read, long written, long readBytes,
                          long readRecords) {

        Throwable failure() {
            return write.failure() != null ? write.failure() : read.failure();
        }

        double writeRate() {
            return write.wallNanos() == 0 ? 0 : written * 1e9 / write.wallNanos();
        }

        double readRate() {
            return read.wallNanos() == 0 ? 0 : readBytes * 1e9 / read.wallNanos();
        }
    }

    private static Path tmpDir(ShuffleConfig config) {
        String dirs = config.get(ShuffleOptions.TMP_DIRS).trim();
        String first = dirs.isEmpty() ? System.getProperty("java.io.tmpdir") : dirs.split(",")[0].trim();
        return Path.of(first);
    }

    /** The run's summary from the measured round {@code run}; {@code limits} is null when dd did not run. */
    private RunSummary summary(Phases run, DiskLimits limits) {
        return summary(run, limits, 0);
    }

    /**
     * The run's summary; {@code volumeWrite} is dd's buffered write of the run's volume in bytes/s
     * ({@link DiskLimits#bufferedWriteOf}), 0 when the run was not larger than the probe.
     */
    private RunSummary summary(Phases run, DiskLimits limits, double volumeWrite) {
        MeasuredRun.Outcome write = run.write();
        MeasuredRun.Outcome read = run.read();
        Throwable failure = run.failure();
        double writeRate = run.writeRate();
        double readRate = run.readRate();
        String phases = String.format(Locale.ROOT, "blocking: write %s, read %s", DiskLimits.rate(writeRate),
                DiskLimits.rate(readRate));
        if (limits != null) {
            String which = limits.measurements() > 1 ? ", mean of before the run and after the read" : "";
            err.print("limits of the temp directory (dd, " + Units.gigabytes(limits.bytes()) + which + "):\n"
                    + limits.compare(writeRate, readRate));
            phases += String.format(Locale.ROOT, " (dd page cache: write %.2fx, read %.2fx; direct: write %.2fx, "
                            + "read %.2fx)", writeRate / limits.writeCached(), readRate / limits.readCached(),
                    writeRate / limits.writeDirect(), readRate / limits.readDirect());
            if (volumeWrite > 0) {
                err.println(String.format(Locale.ROOT, "  dd write of the run's %s through the page cache (mean of "
                                + "before the run and after the read): %s; sluice write %s = %.2fx",
                        Units.gigabytes(options.workload().totalBytes()), DiskLimits.rate(volumeWrite),
                        DiskLimits.rate(writeRate), writeRate / volumeWrite));
                phases += String.format(Locale.ROOT, "; dd writing as much through the page cache: write %.2fx",
                        writeRate / volumeWrite);
            }
        }
        MemoryPeak memory = MemoryPeak.larger(write.memory(), read.memory());
        String codec = options.shuffleConfig().get(ShuffleOptions.COMPRESSION_CODEC);
        String shape = options.producers() + " producers x " + options.consumers() + " consumers, "
                + options.environments() + (options.environments() == 1 ? " environment" : " environments, transport "
                + options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT)) + ", compression " + codec + "; "
                + phases;
        return new RunSummary(Command.RUN.word(), shape, options.producers(), options.consumers(),
                options.workload().sizes().toString(), run.readBytes(), run.readRecords(),
                write.wallNanos() + read.wallNanos(),
                LatencySummary.NONE, memory, write.buffersNotReturned() + read.buffersNotReturned(),
                failure == null ? null : MeasuredRun.describe(failure), SoakReport.NONE, bothPhases(write, read));
    }

    /** The write phase's flow samples, then the read phase's (each phase's elapsed time starts at 0). */
    private static FlowSummary bothPhases(MeasuredRun.Outcome write, MeasuredRun.Outcome read) {
        if (write == read) {
            return write.flow();
        }
        List<FlowSample> samples = new ArrayList<>(write.flow().samples());
        samples.addAll(read.flow().samples());
        return new FlowSummary(samples);
    }
}
