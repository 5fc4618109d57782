package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: creates global pools for one test and, at its end, checks that every segment came back (H-1):
 * destroys the local pools, asserts {@code available == total} and no registered pool, then destroys the pool.
 * Pools the test destroyed itself are only checked for reading 0.
 */
final class GlobalPools {

    static final int SEGMENT_SIZE = 128;

    private final List<NetworkBufferPool> created = new ArrayList<>();

    NetworkBufferPool create(int segments) {
        return create(segments, Duration.ofSeconds(30));
    }

    NetworkBufferPool create(int segments, Duration requestTimeout) {
        NetworkBufferPool pool = new NetworkBufferPool(segments, SEGMENT_SIZE, requestTimeout);
        created.add(pool);
        return pool;
    }

    /** H-1: call from {@code @AfterEach}. */
    void assertEverySegmentReturnedAndDestroy() {
        for (NetworkBufferPool pool : created) {
            if (pool.isDestroyed()) {
                assertEquals(0, pool.getNumberOfAvailableMemorySegments());
                continue;
            }
            pool.destroyAllBufferPools();
            assertEquals(0, pool.getNumberOfRegisteredBufferPools(), "local pools left registered");
            assertEquals(pool.getTotalNumberOfMemorySegments(), pool.getNumberOfAvailableMemorySegments(),
                    "segments not returned to the global pool");
            pool.destroy();
        }
        created.clear();
    }
}
