package io.sluice.flink.itcases;

import io.sluice.api.ShuffleMetrics;
import io.sluice.flink.SluiceShuffleEnvironment;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Sluice environments {@link InjectedShuffleServiceFactory} created in this JVM, so that a run can show that
 * Sluice was under a test class and whether its data crossed Sluice's transport. Static because Flink instantiates
 * the factory by class name; {@link SluiceUsageListener} takes a summary after each test class. Thread-safe.
 */
public final class SluiceUsage {

    private static final List<SluiceShuffleEnvironment> ENVIRONMENTS = new CopyOnWriteArrayList<>();

    private SluiceUsage() {
    }

    /** What the environments of one test class did. */
    public record Summary(int environments, long bytesSent, int segmentsInUse) {

        /**
         * @param environments  Sluice environments (TaskManagers) created
         * @param bytesSent     data bytes they wrote to Sluice's transport (0: every exchange stayed in-process)
         * @param segmentsInUse memory segments not back in their environments' pools when the summary was taken
         */
        public Summary {
        }
    }

    static void record(SluiceShuffleEnvironment environment) {
        ENVIRONMENTS.add(environment);
    }

    /** @return the environments created since the last {@link #takeSummary()}, in creation order */
    public static List<SluiceShuffleEnvironment> environments() {
        return List.copyOf(ENVIRONMENTS);
    }

    /** @return the summary of the environments created since the last {@link #takeSummary()} */
    public static Summary peek() {
        return summarize(List.copyOf(ENVIRONMENTS));
    }

    /** @return the summary of the environments created since the last call, which are then forgotten */
    public static Summary takeSummary() {
        List<SluiceShuffleEnvironment> environments = List.copyOf(ENVIRONMENTS);
        ENVIRONMENTS.removeAll(environments);
        return summarize(environments);
    }

    private static Summary summarize(List<SluiceShuffleEnvironment> environments) {
        long bytesSent = 0;
        int segmentsInUse = 0;
        for (SluiceShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.sluiceEnvironment().metrics();
            bytesSent += metrics.bytesSent();
            segmentsInUse += metrics.totalSegments() - metrics.availableSegments();
        }
        return new Summary(environments.size(), bytesSent, segmentsInUse);
    }
}
