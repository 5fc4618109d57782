package io.sluice.bench.command;

import io.sluice.testing.NettyLeaks;
import io.sluice.tests.chaos.ChaosResult;
import io.sluice.tests.chaos.ChaosRun;
import io.sluice.tests.chaos.ChaosTally;
import java.io.PrintStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import java.util.List;

/**
 * {@code sluice-bench chaos}: runs seeded fault-injection seeds ({@code --seeds N [--start S]}, or one
 * {@code --seed S} with its full report), prints progress to stderr every few seconds and the report of every failing
 * seed, with the command that replays it, to stdout. Checks Netty's leak detector (paranoid) after every seed.
 * Exit status 0 when every seed passed, 1 when one failed, 2 for a wrong command line. Options filled by picocli;
 * one thread.
 */
@Command(name = "chaos", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        header = "Seeded fault injection: every seed's faults and job come from the seed alone.",
        synopsisHeading = "%nUsage: ", customSynopsis = "sluice-bench chaos [--seeds N] [--start S] | --seed S",
        descriptionHeading = "%n",
        description = "Each seed builds 2 to 4 environments, an all-to-all job and a schedule of faults from the seed"
                + " alone, and checks that every consumer read everything intact or failed as documented, that nothing"
                + " hung, and that every segment and Netty buffer came back.",
        optionListHeading = "%nOptions:%n",
        footer = "%nExit status: 0 all passed, 1 a seed failed, 2 for a wrong command line.")
public final class ChaosCommand {

    private static final long PROGRESS_NANOS = 10_000_000_000L;
    static final int LEAK_CHECK_EVERY = 20;

    @Option(names = "--seeds", paramLabel = "N", defaultValue = "1000",
            description = "seeds to run, from --start on [default: ${DEFAULT-VALUE}]")
    long seeds;

    @Option(names = "--start", paramLabel = "S", defaultValue = "1", description = "first seed [default: ${DEFAULT-VALUE}]")
    long start;

    @Option(names = "--seed", paramLabel = "S", description = "run only seed S and print its report, passed or not")
    Long single;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    boolean help;

    /**
     * @throws UsageException when --seeds is below 1
     */
    public void check() throws UsageException {
        if (seeds < 1) {
            throw new UsageException("--seeds " + seeds + " is out of range; use 1 or more");
        }
    }

    /**
     * Runs the seeds; call {@link #check} first.
     *
     * @param out where reports and the tally go
     * @param err where progress goes
     * @return true when every seed passed and Netty reported no leak
     */
    public boolean run(PrintStream out, PrintStream err) {
        NettyLeaks.installForCommandLine();
        if (single != null) {
            ChaosResult result = new ChaosRun(single).execute();
            List<String> leaks = NettyLeaks.collectLeaks();
            if (!leaks.isEmpty()) {
                result = result.withProblems(leaks);
            }
            out.print(result.report());
            return result.passed();
        }
        long began = System.nanoTime();
        long lastProgress = began;
        ChaosTally tally = new ChaosTally();
        long leakChecked = start;
        for (long n = 0; n < seeds; n++) {
            ChaosResult result = new ChaosRun(start + n).execute();
            tally.add(result);
            if (!result.passed()) {
                out.print(result.report());
                out.flush();
            }
            if ((n + 1) % LEAK_CHECK_EVERY == 0 || n + 1 == seeds) {
                List<String> leaks = NettyLeaks.collectLeaks();
                if (!leaks.isEmpty()) {
                    tally.addLeak();
                    out.printf("chaos seeds %d..%d: Netty reported %d leak(s); replay each seed with "
                            + "'sluice-bench chaos --seed S' to find it:%n%s%n", leakChecked, start + n, leaks.size(),
                            String.join("\n", leaks));
                    out.flush();
                }
                leakChecked = start + n + 1;
            }
            long now = System.nanoTime();
            if (now - lastProgress >= PROGRESS_NANOS || n + 1 == seeds) {
                lastProgress = now;
                double seconds = (now - began) / 1e9;
                err.printf("chaos: %d/%d seeds (%d..%d), %d failed, %.1f s, %.2f seeds/s%n", n + 1, seeds, start,
                        start + n, tally.failed(), seconds, (n + 1) / seconds);
            }
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        out.printf("chaos: %d seeds from %d, %d failed, %.1f s, %.2f seeds/s%n", seeds, start, tally.failed(), seconds,
                seeds / seconds);
        out.print(tally.summary());
        return tally.failed() == 0 && tally.leaks() == 0;
    }
}
