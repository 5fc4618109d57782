package io.sluice.netty.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.buffers.NetworkBufferPool;

/**
 * The leak check every test ends with (docs/behaviours.md H-1): once everything is closed or released, the global pool
 * holds every segment again.
 *
 * <p>Stateless; any thread.
 */
public final class MemoryAssertions {

    private MemoryAssertions() {
    }

    /** Every segment of {@code pool} is free: nothing was leaked. */
    public static void assertAllSegmentsReturned(NetworkBufferPool pool) {
        assertEquals(pool.getTotalNumberOfMemorySegments(), pool.getNumberOfAvailableMemorySegments(),
                "segments leaked: " + pool.getNumberOfUsedMemorySegments() + " of "
                        + pool.getTotalNumberOfMemorySegments() + " still in use (" + pool + ")");
    }

    /** Every segment of {@code environment} is free (read from its metrics, which work after close). */
    public static void assertAllSegmentsReturned(ShuffleEnvironment environment) {
        ShuffleMetrics metrics = environment.metrics();
        assertEquals(metrics.totalSegments(), metrics.availableSegments(),
                "segments leaked by " + environment + ": " + metrics);
    }
}
