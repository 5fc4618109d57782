package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
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
import io.sluice.tests.support.Wiring;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@code consume}: one consumer environment that reads the partitions of a serve process, with
 * its own shuffle master building the descriptors from the serve line. Used by the main thread.
 */
public final class ConsumeRun {

    private final BenchOptions options;
    private final PrintStream err;

    /**
     * @param options the command line, with its ticket
     * @param err where progress goes
     */
    public ConsumeRun(BenchOptions options, PrintStream err) {
        this.options = options;
        this.err = err;
    }

    /** @return the summary; a failure of any kind is in it, never thrown */
    public RunSummary execute() {
        ShuffleConfig config = options.shuffleConfig();
        ServeTicket ticket = options.ticket();
        try {
            ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
            ResourceId id = new ResourceId("sluice-consume-" + UUID.randomUUID().toString().substring(0, 8));
            try (Environments environments = Environments.start(factory, List.of(ShuffleEnvironmentContext.of(config, id)));
                 ShuffleMaster master = factory.createShuffleMaster(config)) {
                ShuffleEnvironment environment = environments.get(0);
                InetSocketAddress producerAddress = new InetSocketAddress(ticket.host(), ticket.port());
                ProducerDescriptor producer = new ProducerDescriptor(new ResourceId(ticket.producerId()), producerAddress);
                List<ShuffleDescriptor> partitions = new ArrayList<>();
                for (ResultPartitionId partitionId : ticket.partitions()) {
                    partitions.add(Wiring.register(master, partitionId, ticket.subpartitions(), producer));
                }
                List<InputGate> gates = new ArrayList<>();
                for (int c = 0; c < ticket.subpartitions(); c++) {
                    InputGate gate = Wiring.gate(environment, "consumer-" + c, c, partitions);
                    gate.setup();
                    gates.add(gate);
                }
                ConsumerSide consumerSide = new ConsumerSide(gates, partitions.size());
                MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, environments, consumerSide.tasks(),
                        consumerSide::bytes, null);
                // Timestamps are System.nanoTime() of the producer: comparable on one host only.
                LatencySummary latency = isThisHost(producerAddress.getAddress()) ? consumerSide.latency() : LatencySummary.NONE;
                return summary(consumerSide.bytes(), consumerSide.records(), outcome.wallNanos(), latency,
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

    private static boolean isThisHost(InetAddress address) throws SocketException {
        return address != null && (address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null);
    }

    private RunSummary summary(long bytes, long records, long wallNanos, LatencySummary latency, MemoryPeak memory,
                               int notReturned, Throwable failure, SoakReport soak, FlowSummary flow,
                               ReportSeries series) {
        ServeTicket ticket = options.ticket();
        String shape = ticket.partitions().size() + " partitions x " + ticket.subpartitions() + " consumers from "
                + ticket.host() + ":" + ticket.port() + ", transport " + options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT);
        return new RunSummary(Command.CONSUME.word(), shape, ticket.partitions().size(), ticket.subpartitions(), "-",
                bytes, records, wallNanos, latency, memory, notReturned,
                failure == null ? null : MeasuredRun.describe(failure), soak, flow, series);
    }
}
