package io.sluice.bench;

import io.sluice.bench.command.BenchCli;
import io.sluice.bench.command.BenchCommand;
import io.sluice.bench.command.BenchTls;
import io.sluice.bench.command.ChaosCommand;
import io.sluice.bench.command.LatencyCommand;
import io.sluice.bench.command.UsageException;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Flags;
import io.sluice.bench.report.HtmlReport;
import io.sluice.bench.report.RunSummary;
import io.sluice.bench.report.SummaryJson;
import io.sluice.bench.report.SummaryTable;
import io.sluice.bench.run.ConsumeRun;
import io.sluice.bench.run.LocalRun;
import io.sluice.bench.run.ServeRun;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * The sluice-bench command line: {@code run} (the default), {@code serve}, {@code consume},
 * {@code jmh}, {@code chaos}, {@code latency}; see {@code io.sluice.bench.command.SluiceBench}. Exit status 0
 * when every record arrived intact, 1 when the run failed, 2 for a wrong command line.
 */
public final class Main {

    /** Every record arrived intact; nothing leaked. */
    public static final int EXIT_PASS = 0;
    /** The run failed: wrong data, an error, a timeout or a leak. */
    public static final int EXIT_FAIL = 1;
    /** The command line is wrong. */
    public static final int EXIT_USAGE = 2;

    private Main() {
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            // JMH's own runner: parses its options, forks the benchmark JVMs with this jar's class path.
            org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        // No SLF4J binding ships in this jar: keep SLF4J's "no providers" notice off the user's screen.
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs one command.
     *
     * @param args the command line, without {@code jmh}
     * @param out where the summary (and serve's consume line) goes
     * @param err where progress and usage errors go
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String[] line = args;
        if (args.length > 0 && args[0].equals("help")) {
            // "help" and "help serve" print the help of the top command or of the one named.
            line = Arrays.copyOf(Arrays.copyOfRange(args, 1, args.length), args.length);
            line[args.length - 1] = Flags.HELP;
        }
        BenchOptions options;
        try {
            CommandLine chosen = BenchCli.select(line);
            if (chosen.isUsageHelpRequested()) {
                out.print(chosen.getUsageMessage());
                return EXIT_PASS;
            }
            if (chosen.getCommand() instanceof ChaosCommand chaos) {
                chaos.check();
                return chaos.run(out, err) ? EXIT_PASS : EXIT_FAIL;
            }
            if (chosen.getCommand() instanceof LatencyCommand latency) {
                latency.check();
                return latency.run(out, err) ? EXIT_PASS : EXIT_FAIL;
            }
            options = BenchTls.withStores(((BenchCommand) chosen.getCommand()).options(), err);
        } catch (UsageException e) {
            err.println("sluice-bench: " + e.getMessage());
            err.println("(sluice-bench --help lists the options)");
            return EXIT_USAGE;
        }
        RunSummary summary = switch (options.command()) {
            case RUN -> new LocalRun(options, err).execute();
            case SERVE -> new ServeRun(options, out, err).execute();
            case CONSUME -> new ConsumeRun(options, err).execute();
        };
        out.print(options.json() ? SummaryJson.format(summary) : SummaryTable.format(summary));
        out.flush();
        if (options.report() != null) {
            try {
                HtmlReport.write(summary, options.report());
                err.println("sluice-bench: report written to " + options.report());
            } catch (IOException e) {
                err.println("sluice-bench: cannot write " + Flags.REPORT + " " + options.report() + ": " + e);
                return EXIT_FAIL;
            }
        }
        return summary.passed() ? EXIT_PASS : EXIT_FAIL;
    }
}
