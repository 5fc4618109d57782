package io.sluice.flink;

import io.sluice.api.ShuffleMetrics;
import io.sluice.testing.Await;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** Checks that the Sluice environments of a cluster got every memory segment back (partitions are released
 * asynchronously after a job ends, so it waits a bounded time). Test thread. */
final class SluiceMemory {

    private SluiceMemory() {
    }

    static void assertAllSegmentsReturned(List<SluiceShuffleEnvironment> environments) {
        assertFalse(environments.isEmpty(), "the cluster ran on Sluice");
        for (SluiceShuffleEnvironment environment : environments) {
            assertAllSegmentsReturned(environment);
        }
    }

    static void assertAllSegmentsReturned(SluiceShuffleEnvironment environment) {
        Await.until(() -> {
            ShuffleMetrics now = environment.sluiceEnvironment().metrics();
            return now.availableSegments() == now.totalSegments();
        }, Await.EVENTUALLY, () -> "segments of " + environment.sluiceEnvironment().resourceId()
                + " back in its pool (" + environment.sluiceEnvironment().metrics() + "); partitions still held: "
                + environment.sluiceEnvironment().partitionsOccupyingLocalResources());
    }
}
