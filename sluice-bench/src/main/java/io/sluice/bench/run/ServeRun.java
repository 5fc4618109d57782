package io.sluice.bench.run;

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
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.report.FlowSummary;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.MemoryPeak;
import io.sluice.bench.report.ReportSeries;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.SoakReport;
import io.sluice.bench.report.Units;
import io.sluice.tests.support.Wiring;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code serve}: one producer environment whose partitions another process reads. Prints the
 * consume line on stdout as soon as the partitions are registered, produces, and waits until the
 * consumer has read every partition to its end. Used by the main thread.
 */
public final class ServeRun {

    /** How often to look whether the consumer has read everything. */
    private static final long CONSUMED_POLL_MILLIS = 20;

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param options the command line
     * @param out where the consume line goes
     * @param err where progress and hints go
     */
    public ServeRun(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /** @return the producer-side summary; a failure of any kind is in it, never thrown */
    public RunSummary execute() {
        ShuffleConfig config = options.shuffleConfig();
        int producers = options.producers();
        int consumers = options.consumers();
        try {
            ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
            ResourceId id = new ResourceId("sluice-serve-" + UUID.randomUUID().toString().substring(0, 8));
            ShuffleEnvironmentContext context = new ShuffleEnvironmentContext(config, id,
                    config.get(ShuffleOptions.MEMORY_TOTAL), false, InetAddress.getByName(options.bindAddress()));
            try (Environments environments = Environments.start(factory, List.of(context));
                 ShuffleMaster master = factory.createShuffleMaster(config)) {
                ShuffleEnvironment environment = environments.get(0);
                ProducerDescriptor producer = new ProducerDescriptor(environment.resourceId(), environment.dataAddress());
                List<ResultPartitionId> ids = new ArrayList<>();
                List<ResultPartitionWriter> writers = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    ResultPartitionId partitionId = ResultPartitionId.random();
                    ShuffleDescriptor partition = Wiring.register(master, partitionId, consumers, producer);
                    ResultPartitionWriter writer = Wiring.writer(environment, "producer-" + p, partition, consumers);
                    writer.setup();
                    writers.add(writer);
                    ids.add(partitionId);
                }
                printTicket(environment.dataAddress(), id, ids, config);
                ProducerSide producerSide = new ProducerSide(writers, options.workload());
                MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, environments, producerSide.tasks(),
                        producerSide::bytes, deadline -> awaitConsumed(environment, deadline));
                return summary(producerSide.bytes(), producerSide.records(), outcome.wallNanos(), outcome.memory(),
                        outcome.buffersNotReturned(), outcome.failure(), outcome.soak(), outcome.flow(),
                        outcome.series());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return summary(0, 0, 0, MemoryPeak.NONE, 0, e, SoakReport.NONE, FlowSummary.NONE, ReportSeries.NONE);
        }
    }

    private void printTicket(InetSocketAddress dataAddress, ResourceId id, List<ResultPartitionId> ids, ShuffleConfig config)
            throws java.net.UnknownHostException {
        InetAddress address = dataAddress.getAddress();
        // A wildcard bind listens everywhere; the consumer needs a name that reaches this machine.
        String host = address.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostName() : address.getHostAddress();
        ServeTicket ticket = new ServeTicket(host, dataAddress.getPort(), id.value(), ids, options.consumers());
        String segmentSize = Units.byteSize(config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
        out.println(ticket.toCommandLine(segmentSize, options.workload()));
        out.flush();
        err.println("serving " + ids.size() + " partitions on " + host + ":" + dataAddress.getPort()
                + "; on the consumer side run: java -jar sluice-bench.jar <the line above>");
        err.flush();
    }

    /** The partitions leave the environment once the consumer has read every subpartition to its end. */
    private Throwable awaitConsumed(ShuffleEnvironment environment, long deadlineNanos) throws InterruptedException {
        while (!environment.partitionsOccupyingLocalResources().isEmpty()) {
            if (System.nanoTime() - deadlineNanos >= 0) {
                return new TimeoutException(environment.partitionsOccupyingLocalResources().size()
                        + " partitions not fully consumed within --timeout " + options.timeout().toSeconds() + " s");
            }
            TimeUnit.MILLISECONDS.sleep(CONSUMED_POLL_MILLIS);
        }
        return null;
    }

    private RunSummary summary(long bytes, long records, long wallNanos, MemoryPeak memory, int notReturned,
                               Throwable failure, SoakReport soak, FlowSummary flow,
                               ReportSeries series) {
        String shape = options.producers() + " producers x " + options.consumers() + " subpartitions, bound to "
                + options.bindAddress() + ", transport " + options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT);
        return new RunSummary(Command.SERVE.word(), shape, options.producers(), options.consumers(),
                options.workload().sizes().toString(), bytes, records, wallNanos, LatencySummary.NONE, memory, notReturned,
                failure == null ? null : MeasuredRun.describe(failure), soak, flow, series);
    }
}
