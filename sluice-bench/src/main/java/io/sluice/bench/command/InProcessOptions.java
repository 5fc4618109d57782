package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Flags;
import io.sluice.bench.options.Workload;
import io.sluice.bench.run.JitActivity;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of {@code run}, which both {@link RunCommand} and the top command {@link SluiceBench}
 * take (picocli refuses a command whose subcommand is its own superclass). Filled by picocli; main thread.
 */
abstract class InProcessOptions extends BenchCommand {

    private static final int MAX_ENVIRONMENTS = 64;
    private static final int MAX_WARMUP_ROUNDS = 100;

    @Mixin
    ProducerOptions producing;

    @Mixin
    ReceiverOptions receiving;

    @Option(names = Flags.ENVIRONMENTS, order = 3, paramLabel = "N", defaultValue = "2",
            description = "shuffle environments in this process; producers go to the first half, consumers to the rest"
                    + " (1 = in-process channels only) [default: ${DEFAULT-VALUE}]")
    int environments;

    @Option(names = Flags.PARTITION_TYPE, order = 14, paramLabel = "pipelined|blocking", defaultValue = "pipelined",
            description = "pipelined streams while producing; blocking writes everything to disk first (write phase),"
                    + " then reads it (read phase), each timed, next to dd's limits of the temp directory"
                    + " [default: ${DEFAULT-VALUE}]")
    PartitionType partitionType;

    @Option(names = Flags.WARMUP_BYTES, order = 15, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            defaultValue = "512m",
            description = "blocking only: bytes written to disk and read back in each unmeasured warm-up round before"
                    + " the measured phases, so that both run compiled code as in a long-running engine (the JIT"
                    + " compiles the read path only once a read starts); 0 = none [default: ${DEFAULT-VALUE}]")
    long warmUpBytes;

    @Option(names = Flags.WARMUP_ROUNDS, order = 16, paramLabel = "N", defaultValue = "30",
            description = "blocking only: at most this many warm-up rounds; the warm-up ends after the first round in"
                    + " which the JIT compiler worked less than " + JitActivity.SETTLED_PERCENT + "%% of the round's"
                    + " time [default: ${DEFAULT-VALUE}]")
    int warmUpRounds;

    @Override
    io.sluice.bench.options.Command command() {
        return io.sluice.bench.options.Command.RUN;
    }

    @Override
    public BenchOptions options() throws UsageException {
        ShuffleConfig config = checked(receiving.addTo(producing.addTo(common.librarySettings())));
        int producers = producing.producers();
        int consumers = producing.consumers();
        int checkedEnvironments = Counts.check(Flags.ENVIRONMENTS, environments, 1, MAX_ENVIRONMENTS);
        Workload workload = producing.workload(common);
        return options(producers, consumers, checkedEnvironments, workload, config, null, null,
                partitionType == PartitionType.BLOCKING, warmUpBytes,
                Counts.check(Flags.WARMUP_ROUNDS, warmUpRounds, 1, MAX_WARMUP_ROUNDS));
    }
}
