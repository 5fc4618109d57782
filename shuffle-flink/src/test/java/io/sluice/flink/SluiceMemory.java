package io.sluice.flink;

import io.sluice.api.ShuffleMetrics;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Checks that the Sluice environments of a cluster got every memory segment back (partitions are released
 * asynchronously after a job ends, so it waits a bounded time). Test thread. */
final class SluiceMemory {

    private static final long LIMIT_NANOS = 30_000_000_000L;

    private SluiceMemory() {
    }

    static void assertAllSegmentsReturned(List<SluiceShuffleEnvironment> environments) throws InterruptedException {
        assertFalse(environments.isEmpty(), "the cluster ran on Sluice");
        for (SluiceShuffleEnvironment environment : environments) {
            assertAllSegmentsReturned(environment);
        }
    }

    static void assertAllSegmentsReturned(SluiceShuffleEnvironment environment) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        ShuffleMetrics metrics = environment.sluiceEnvironment().metrics();
        while (metrics.availableSegments() != metrics.totalSegments() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            metrics = environment.sluiceEnvironment().metrics();
        }
        assertEquals(metrics.totalSegments(), metrics.availableSegments(),
                "segments of " + environment.sluiceEnvironment().resourceId() + " back in its pool; partitions "
                        + "still held: " + environment.sluiceEnvironment().partitionsOccupyingLocalResources());
    }
}
