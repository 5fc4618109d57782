package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.report.FlowSummary;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.MemoryPeak;
import io.sluice.bench.report.ReportSeries;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.SoakReport;
import io.sluice.tests.support.Wiring;
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
        ShuffleConfig config = options.shuffleConfig();
        int producers = options.producers();
        int consumers = options.consumers();
        try {
            ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
            List<ShuffleEnvironmentContext> contexts = new ArrayList<>();
            for (int i = 0; i < options.environments(); i++) {
                contexts.add(ShuffleEnvironmentContext.of(config, new ResourceId("bench-env-" + i)));
            }
            try (Environments environments = Environments.start(factory, contexts);
                 ShuffleMaster master = factory.createShuffleMaster(config)) {
                List<ShuffleDescriptor> partitions = new ArrayList<>();
                List<ResultPartitionWriter> writers = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    ShuffleEnvironment environment = environments.get(producerEnvironment(p));
                    ShuffleDescriptor partition = Wiring.register(master, ResultPartitionId.random(), consumers,
                            new ProducerDescriptor(environment.resourceId(), environment.dataAddress()));
                    partitions.add(partition);
                    ResultPartitionWriter writer = Wiring.writer(environment, "producer-" + p, partition, consumers);
                    writer.setup();
                    writers.add(writer);
                }
                List<InputGate> gates = new ArrayList<>();
                for (int c = 0; c < consumers; c++) {
                    InputGate gate = Wiring.gate(environments.get(consumerEnvironment(c)), "consumer-" + c, c, partitions);
                    gate.setup();
                    gates.add(gate);
                }
                ProducerSide producerSide = new ProducerSide(writers, options.workload());
                ConsumerSide consumerSide = new ConsumerSide(gates, producers);
                List<TaskGroup.Task> tasks = new ArrayList<>(consumerSide.tasks());
                tasks.addAll(producerSide.tasks());
                MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, environments, tasks, consumerSide::bytes, null);
                return summary(consumerSide.bytes(), consumerSide.records(), outcome.wallNanos(), consumerSide.latency(),
                        outcome.memory(), outcome.buffersNotReturned(), outcome.failure(), outcome.soak(), outcome.flow(),
                        outcome.series());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return summary(0, 0, 0, LatencySummary.NONE, MemoryPeak.NONE, 0, e, SoakReport.NONE, FlowSummary.NONE, ReportSeries.NONE);
        }
    }

    private RunSummary summary(long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
                               int notReturned, Throwable failure, SoakReport soak, FlowSummary flow,
                               ReportSeries series) {
        return new RunSummary(Command.RUN.word(), shape(), options.producers(), options.consumers(),
                options.workload().sizes().toString(), bytes, records, wallNanos, latency, memory, notReturned,
                failure == null ? null : MeasuredRun.describe(failure), soak, flow, series);
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
