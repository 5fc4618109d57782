package io.sluice.tests.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * What one seed's run found. Immutable value; any thread.
 *
 * @param scenario the scenario the seed stands for
 * @param problems every violation found (wrong data, an unexplained or undocumented failure, a stuck thread with its
 *                 stack, a segment that never came back); empty when the seed passed
 * @param fired    the faults that hit
 * @param outcome  how each task ended, producers first (those of blocking partitions before the others)
 * @param notes    what the faults that damaged files did, in words (which byte, which entry, which length)
 * @param nanos    how long the run took
 */
public record ChaosResult(ChaosScenario scenario, List<String> problems, List<Fault> fired, List<TaskOutcome> outcome,
                          List<String> notes, long nanos) {

    /** @return true when nothing was wrong */
    public boolean passed() {
        return problems.isEmpty();
    }

    /**
     * @param more problems found after the run (e.g. Netty's leak reports)
     * @return this result with them added
     */
    public ChaosResult withProblems(List<String> more) {
        List<String> all = new ArrayList<>(problems);
        all.addAll(more);
        return new ChaosResult(scenario, List.copyOf(all), fired, outcome, notes, nanos);
    }

    /** @return the one-line Maven command that runs this seed again */
    public static String replayCommand(long seed) {
        return "mvn -o -pl shuffle-tests -am test -Dtest=ChaosTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dchaos.seed=" + seed + "   (or: java -jar sluice-bench/target/sluice-bench.jar chaos --seed "
                + seed + ")";
    }

    /** @return a report of a failed seed: the seed, the replay command, the scenario, what hit and what was wrong */
    public String report() {
        StringBuilder text = new StringBuilder();
        text.append("chaos seed ").append(scenario.seed()).append(passed() ? " passed" : " FAILED").append(" in ")
                .append(nanos / 1_000_000).append(" ms\n");
        text.append("replay: ").append(replayCommand(scenario.seed())).append('\n');
        text.append(scenario.describe());
        text.append("faults that hit: ").append(fired.isEmpty() ? "none" : fired.toString()).append('\n');
        for (String note : notes) {
            text.append("  ").append(note).append('\n');
        }
        for (TaskOutcome task : outcome) {
            text.append("  ").append(task).append('\n');
        }
        for (String problem : problems) {
            text.append("PROBLEM: ").append(problem).append('\n');
        }
        return text.toString();
    }
}
