package io.sluice.tests.chaos;

import io.sluice.buffers.BufferPoolDestroyedException;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Another pool of an environment's network memory that takes up to some segments for a while and gives them back:
 * the environment's own pools shrink to their new fair share and wait for memory. Runs on its own thread
 * ({@link #run()}); never blocks on the pool (it polls for a bounded time), so it cannot hold memory that its own
 * release depends on. An environment closed under it destroys its pool; it then gives back what it took.
 */
final class MemoryPressure implements Runnable {

    private static final long TAKE_FOR_NANOS = 20_000_000L;

    private final NetworkBufferPool global;
    private final int segments;
    private final int holdMillis;

    MemoryPressure(NetworkBufferPool global, int segments, int holdMillis) {
        this.global = global;
        this.segments = segments;
        this.holdMillis = holdMillis;
    }

    @Override
    public void run() {
        LocalBufferPool pool;
        try {
            pool = global.createBufferPool(0, segments);
        } catch (IOException | IllegalStateException e) {
            return; // no room for another pool, or the environment is closed: no pressure to apply
        }
        List<MemorySegment> taken = new ArrayList<>(segments);
        try {
            long deadline = System.nanoTime() + TAKE_FOR_NANOS;
            while (taken.size() < segments && System.nanoTime() - deadline < 0) {
                MemorySegment segment = pool.requestMemorySegment();
                if (segment == null) {
                    Thread.onSpinWait();
                    Thread.yield();
                } else {
                    taken.add(segment);
                }
            }
            Thread.sleep(holdMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BufferPoolDestroyedException e) {
            // The environment closed and destroyed this pool too (as documented): stop taking, give back below.
        } finally {
            for (MemorySegment segment : taken) {
                pool.recycle(segment);
            }
            pool.lazyDestroy();
        }
    }
}
