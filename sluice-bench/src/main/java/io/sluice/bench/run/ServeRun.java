package io.sluice.bench.run;

import io.sluice.api.PartitionType;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.report.LatencySummary;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.Units;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
        ResourceId id = new ResourceId("sluice-serve-" + UUID.randomUUID().toString().substring(0, 8));
        try (RunShuffle shuffle = RunShuffle.start(config, List.of(new ShuffleEnvironmentContext(config, id,
                config.get(ShuffleOptions.MEMORY_TOTAL), false, InetAddress.getByName(options.bindAddress()))))) {
            ShuffleEnvironment environment = shuffle.environments().get(0);
            RunShuffle.Partitions partitions = shuffle.produce(options.producers(), options.consumers(),
                    PartitionType.PIPELINED_BOUNDED, p -> environment);
            printTicket(environment.dataAddress(), id, partitions.ids(), config);
            ProducerSide producerSide = new ProducerSide(partitions.writers(), options.workload());
            MeasuredRun.Outcome outcome = MeasuredRun.execute(options, err, shuffle.environments(),
                    producerSide.tasks(), producerSide::bytes, deadline -> awaitConsumed(environment, deadline));
            return summary(producerSide.bytes(), producerSide.records(), outcome);
        } catch (Exception e) {
            return summary(0, 0, MeasuredRun.Outcome.failed(e));
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

    private RunSummary summary(long bytes, long records, MeasuredRun.Outcome outcome) {
        String shape = options.producers() + " producers x " + options.consumers() + " subpartitions, bound to "
                + options.bindAddress() + ", transport " + options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT);
        return outcome.summary(Command.SERVE, shape, options.producers(), options.consumers(),
                options.workload().sizes().toString(), bytes, records, LatencySummary.NONE);
    }
}
