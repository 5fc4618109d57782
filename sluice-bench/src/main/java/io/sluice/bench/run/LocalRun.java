package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.PartitionType;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.RunSummary;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The default command: several environments in this process, producers on the first half of
 * them and consumers on the rest (everything on one when there is one), every consumer reading
 * every producer. Used by the main thread.
 */
public final class LocalRun {

    private final BenchOptions options;
    private final PrintStream err;

    /**
     * @param options the command line
     * @param err where progress goes
     */
    public LocalRun(BenchOptions options, PrintStream err) {
        this.options = options;
        this.err = err;
    }

    /** @return the summary; a failure of any kind is in it, never thrown */
    public RunSummary execute() {
        if (options.blocking()) {
            return new BlockingRun(options, err).execute();
        }
        int producers = options.producers();
        int consumers = options.consumers();
        try (RunShuffle shuffle = RunShuffle.start(options.shuffleConfig(),
                RunShuffle.contexts(options.shuffleConfig(), options.environments()))) {
            Environments environments = shuffle.environments();
            RunShuffle.Partitions partitions = shuffle.produce(producers, consumers, PartitionType.PIPELINED_BOUNDED,
                    p -> environments.get(producerEnvironment(p)));
            List<InputGate> gates = shuffle.consume(consumers, partitions.descriptors(),
                    c -> environments.get(consumerEnvironment(c)));
            ProducerSide producerSide = new ProducerSide(partitions.writers(), options.workload());
            ConsumerSide consumerSide = new ConsumerSide(gates, producers);
            List<TaskGroup.Task> tasks = new ArrayList<>(consumerSide.tasks());
            tasks.addAll(producerSide.tasks());
            MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, environments, tasks, consumerSide::bytes, null);
            return summary(consumerSide.bytes(), consumerSide.records(), consumerSide.latency(), outcome);
        } catch (Exception e) {
            return summary(0, 0, LatencySummary.NONE, MeasuredRun.Outcome.failed(e));
        }
    }

    private RunSummary summary(long bytes, long records, LatencySummary latency, MeasuredRun.Outcome outcome) {
        return outcome.summary(Command.RUN, shape(), options.producers(), options.consumers(),
                options.workload().sizes().toString(), bytes, records, latency);
    }

    private String shape() {
        int environments = options.environments();
        String transport = options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT);
        return options.producers() + " producers x " + options.consumers() + " consumers, " + environments
                + (environments == 1 ? " environment (in-process channels)" : " environments, transport " + transport);
    }

    /** Producers fill the first half of the environments, round-robin (all of one when there is one). */
    private int producerEnvironment(int producer) {
        return producer % producerEnvironments();
    }

    /** Consumers fill the rest, round-robin, so every channel crosses the transport. */
    private int consumerEnvironment(int consumer) {
        int environments = options.environments();
        if (environments == 1) {
            return 0;
        }
        return producerEnvironments() + consumer % (environments - producerEnvironments());
    }

    private int producerEnvironments() {
        return Math.max(1, options.environments() / 2);
    }
}
