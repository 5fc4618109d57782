package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.RunSummary;
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
        ResourceId id = new ResourceId("sluice-consume-" + UUID.randomUUID().toString().substring(0, 8));
        try (RunShuffle shuffle = RunShuffle.start(config, List.of(ShuffleEnvironmentContext.of(config, id)))) {
            InetSocketAddress producerAddress = new InetSocketAddress(ticket.host(), ticket.port());
            ProducerDescriptor producer = new ProducerDescriptor(new ResourceId(ticket.producerId()), producerAddress);
            List<ShuffleDescriptor> partitions = new ArrayList<>();
            for (ResultPartitionId partitionId : ticket.partitions()) {
                partitions.add(shuffle.register(partitionId, PartitionType.PIPELINED_BOUNDED, ticket.subpartitions(),
                        producer));
            }
            ShuffleEnvironment environment = shuffle.environments().get(0);
            List<InputGate> gates = shuffle.consume(ticket.subpartitions(), partitions, c -> environment);
            ConsumerSide consumerSide = new ConsumerSide(gates, partitions.size());
            MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, shuffle.environments(),
                    consumerSide.tasks(), consumerSide::bytes, null);
            // Timestamps are System.nanoTime() of the producer: comparable on one host only.
            LatencySummary latency = isThisHost(producerAddress.getAddress()) ? consumerSide.latency() : LatencySummary.NONE;
            return summary(consumerSide.bytes(), consumerSide.records(), latency, outcome);
        } catch (Exception e) {
            return summary(0, 0, LatencySummary.NONE, MeasuredRun.Outcome.failed(e));
        }
    }

    private static boolean isThisHost(InetAddress address) throws SocketException {
        return address != null && (address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null);
    }

    private RunSummary summary(long bytes, long records, LatencySummary latency, MeasuredRun.Outcome outcome) {
        ServeTicket ticket = options.ticket();
        String shape = ticket.partitions().size() + " partitions x " + ticket.subpartitions() + " consumers from "
                + ticket.host() + ":" + ticket.port() + ", transport " + options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT);
        return outcome.summary(Command.CONSUME, shape, ticket.partitions().size(), ticket.subpartitions(), "-", bytes,
                records, latency);
    }
}
