package io.sluice.flink.itcases;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs first in every run of the profile and shows what the run's shuffle is: a keyed job on a MiniCluster built
 * the way Flink's own ITCases build theirs ({@link MiniClusterExtension}, nothing about the shuffle configured),
 * two TaskManagers so that the key exchange crosses between them. On a Sluice run both TaskManagers run a Sluice
 * environment made by the injection and data crossed Sluice's transport; on the Flink run no Sluice environment
 * exists.
 */
class SluiceInjectionProbeITCase {

    private static final int TASK_MANAGERS = 2;
    private static final long RECORDS = 100_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(TASK_MANAGERS)
                    .setNumberSlotsPerTaskManager(1)
                    .build());

    @Test
    void theRunsShuffleCarriesAKeyedJobOfAFlinkTestCluster() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(TASK_MANAGERS);

        long count = 0;
        long sum = 0;
        try (CloseableIterator<Long> doubled =
                     env.fromSequence(1, RECORDS).keyBy(v -> v % 4).map(v -> v * 2).executeAndCollect()) {
            while (doubled.hasNext()) {
                sum += doubled.next();
                count++;
            }
        }

        assertEquals(RECORDS, count, "records");
        assertEquals(RECORDS * (RECORDS + 1), sum, "sum of the doubled records");
        SluiceUsage.Summary usage = SluiceUsage.peek();
        if (Injection.fromSystemProperties().sluice()) {
            assertEquals(TASK_MANAGERS, usage.environments(), "Sluice environments, one per TaskManager");
            assertTrue(usage.bytesSent() > 0, "bytes over Sluice's transport: " + usage.bytesSent());
        } else {
            assertEquals(0, usage.environments(), "Sluice environments on Flink's own shuffle");
        }
    }
}
