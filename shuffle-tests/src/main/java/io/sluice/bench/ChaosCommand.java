package io.sluice.bench;

import io.sluice.tests.chaos.ChaosResult;
import io.sluice.tests.chaos.ChaosRun;
import io.sluice.tests.chaos.ChaosTally;
import io.sluice.testing.NettyLeaks;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code sluice-bench chaos}: runs seeded fault-injection seeds ({@code --seeds N [--start S]}, or one
 * {@code --seed S} with its full report), prints progress to stderr every few seconds and the report of every failing
 * seed, with the command that replays it, to stdout. Checks Netty's leak detector (paranoid) after every seed.
 * Exit status 0 when every seed passed, 1 when one failed, 2 for a wrong command line. One thread.
 */
final class ChaosCommand {

    private static final long PROGRESS_NANOS = 10_000_000_000L;
    static final int LEAK_CHECK_EVERY = 20;

    private ChaosCommand() {
    }

    static String usage() {
        return "Usage: sluice-bench chaos [--seeds N] [--start S] | --seed S\n"
                + "  --seeds N   seeds to run, from --start on [default: 1000]\n"
                + "  --start S   first seed [default: 1]\n"
                + "  --seed S    run only seed S and print its report, passed or not\n"
                + "Each seed builds 2 to 4 environments, an all-to-all job and a schedule of faults from the seed alone,\n"
                + "and checks that every consumer read everything intact or failed as documented, that nothing hung,\n"
                + "and that every segment and Netty buffer came back. Exit status: 0 all passed, 1 a seed failed.\n";
    }

    /**
     * @param args the arguments after {@code chaos}
     * @return the exit status
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        long start = 1;
        long seeds = 1000;
        Long single = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--seeds" -> seeds = Long.parseLong(value(args, ++i, "--seeds"));
                    case "--start" -> start = Long.parseLong(value(args, ++i, "--start"));
                    case "--seed" -> single = Long.parseLong(value(args, ++i, "--seed"));
                    case "--help", "-h" -> {
                        out.print(usage());
                        return Main.EXIT_PASS;
                    }
                    default -> throw new UsageException("unknown argument '" + args[i] + "' of chaos");
                }
            }
            if (seeds < 1) {
                throw new UsageException("--seeds " + seeds + " is out of range; use 1 or more");
            }
        } catch (NumberFormatException | UsageException e) {
            err.println("sluice-bench chaos: " + e.getMessage());
            err.print(usage());
            return Main.EXIT_USAGE;
        }
        NettyLeaks.installForCommandLine();
        if (single != null) {
            ChaosResult result = new ChaosRun(single).execute();
            List<String> leaks = NettyLeaks.collectLeaks();
            if (!leaks.isEmpty()) {
                result = result.withProblems(leaks);
            }
            out.print(result.report());
            return result.passed() ? Main.EXIT_PASS : Main.EXIT_FAIL;
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
        return tally.failed() == 0 && tally.leaks() == 0 ? Main.EXIT_PASS : Main.EXIT_FAIL;
    }

    private static String value(String[] args, int i, String flag) throws UsageException {
        if (i >= args.length) {
            throw new UsageException(flag + " needs a value");
        }
        return args[i];
    }
}
