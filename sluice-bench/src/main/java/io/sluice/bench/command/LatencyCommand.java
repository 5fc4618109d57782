package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleConfigValidator;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.run.OneWayLatency;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-bench latency}: the one-way latency figure of bench/compare-with-flink.sh, in the Flink peer's shape
 * (see {@link OneWayLatency}); prints one figure line to stdout. Exit status 0 when it was measured and every buffer
 * came back, 1 when the run failed, 2 for a wrong command line. Options filled by picocli; main thread.
 */
@Command(name = "latency", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        header = "One-way latency, one 8-byte record in flight, flush after every record (the Flink peer's shape).",
        synopsisHeading = "%nUsage: ",
        customSynopsis = "sluice-bench latency [--warmup S] [--measure S] [--transport auto|nio|epoll]"
                + " [--spin-wait TIME]",
        descriptionHeading = "%n",
        description = "Two environments in this process over loopback TCP. A producer thread emits a record holding"
                + " System.nanoTime(); a consumer thread takes the difference on arrival and lets the producer send the"
                + " next through a semaphore. The window opens --warmup seconds after the first record arrived and"
                + " lasts --measure seconds. Prints 'sluice.latency.1rec one_way_us_p50=.. p99=.. p999=.. msgs_per_s=.."
                + " cpu_cores=..', nearest-rank percentiles of every sample in the window ('sluice.latency.spin.1rec ..'"
                + " with --spin-wait above 0).",
        optionListHeading = "%nOptions:%n",
        footer = "%nExit status: 0 measured, 1 the run failed, 2 for a wrong command line.")
public final class LatencyCommand {

    private static final Set<String> TRANSPORTS = Set.of("auto", "nio", "epoll");

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "3",
            description = "seconds from the first record to the window [default: ${DEFAULT-VALUE}]")
    double warmupSeconds;

    @Option(names = "--measure", paramLabel = "S", defaultValue = "10",
            description = "seconds measured [default: ${DEFAULT-VALUE}]")
    double measureSeconds;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "auto",
            description = "Netty transport of both environments: auto, nio or epoll [default: ${DEFAULT-VALUE}]")
    String transport;

    @Option(names = "--spin-wait", paramLabel = "TIME", defaultValue = "0ms", converter = DurationConverter.class,
            description = "the consumer's shuffle.input.spin-wait: how long it spins for the next record before it"
                    + " parks, 0 to 10ms [default: ${DEFAULT-VALUE} (library default)]")
    Duration spinWait;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    boolean help;

    /**
     * @throws UsageException naming the option that is out of range
     */
    public void check() throws UsageException {
        if (!(warmupSeconds >= 0)) {
            throw new UsageException("--warmup " + warmupSeconds + " is out of range; use 0 or more seconds");
        }
        if (!(measureSeconds > 0)) {
            throw new UsageException("--measure " + measureSeconds + " is out of range; use more than 0 seconds");
        }
        if (!TRANSPORTS.contains(transport)) {
            throw new UsageException("--transport " + transport + " is not one of auto, nio, epoll");
        }
        // The library's own range check, so the command line and the option cannot disagree.
        List<String> problems = ShuffleConfigValidator.problems(
                ShuffleConfig.empty().with(ShuffleOptions.INPUT_SPIN_WAIT, spinWait));
        if (!problems.isEmpty()) {
            throw new UsageException("--spin-wait: " + problems.get(0));
        }
    }

    /**
     * Measures; call {@link #check} first.
     *
     * @param out where the figure line goes
     * @param err where a failure is described
     * @return true when the figure was measured and every buffer came back
     */
    public boolean run(PrintStream out, PrintStream err) {
        try {
            out.println(new OneWayLatency(transport, spinWait, warmupSeconds, measureSeconds).measure());
            out.flush();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("sluice-bench latency: interrupted");
            return false;
        } catch (Exception e) {
            err.println("sluice-bench latency: " + e);
            e.printStackTrace(err);
            return false;
        }
    }
}
