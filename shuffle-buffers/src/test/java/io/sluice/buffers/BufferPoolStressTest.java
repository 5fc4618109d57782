package io.sluice.buffers;

import io.sluice.testing.BackgroundTask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * Many threads on the pools at once. Each test ends with every segment back in the global pool (H-1) and checks
 * that no segment was ever handed to two holders at once.
 */
class BufferPoolStressTest {

    /** Segments currently handed out; a second add of the same segment means it was given to two holders. */
    private final Set<MemorySegment> inUse = ConcurrentHashMap.newKeySet();

    private void takeOwnership(MemorySegment segment) {
        if (!inUse.add(segment)) {
            throw new AssertionError("segment handed to two holders at once: " + segment);
        }
    }

    private void giveUp(Buffer buffer) {
        inUse.remove(buffer.getMemorySegment());
        buffer.recycleBuffer();
    }

    private static void awaitAll(List<BackgroundTask<Void>> threads) throws Exception {
        for (BackgroundTask<Void> thread : threads) {
            thread.result().get(100, TimeUnit.SECONDS); // a hang fails here as a deadlock (H-3)
        }
    }

    // LBP-6, H-1, H-3
    @Test
    void threads128_eachRequestAndRecycle1024Times_everyRequestSucceeds_andNothingLeaks() throws Exception {
        NetworkBufferPool global = new NetworkBufferPool(32, 64);
        LocalBufferPool pool = global.createBufferPool(16, 16);
        int threads = 128;
        int rounds = 1024;
        AtomicLong served = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<BackgroundTask<Void>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long id = t;
            running.add(BackgroundTask.start("requester-" + t, () -> {
                start.await();
                for (int i = 0; i < rounds; i++) {
                    Buffer buffer = pool.requestBufferBlocking();
                    takeOwnership(buffer.getMemorySegment());
                    long stamp = (id << 32) | i;
                    buffer.getMemorySegment().putLong(0, stamp);
                    Thread.yield(); // widen the window in which a double hand-out would overwrite the stamp
                    assertEquals(stamp, buffer.getMemorySegment().getLong(0));
                    giveUp(buffer);
                    served.incrementAndGet();
                }
                return null;
            }));
        }
        start.countDown();

        awaitAll(running);

        assertEquals((long) threads * rounds, served.get());
        assertEquals(0, pool.bestEffortGetNumOfUsedBuffers());
        pool.lazyDestroy();
        assertEquals(32, global.getNumberOfAvailableMemorySegments());
        assertEquals(global.getTotalNumberOfMemorySegments(), global.getNumberOfAvailableMemorySegments());
        global.destroy();
    }

    /** Counts what it was told; hands its buffer back to the recycling thread at once. */
    private final class OneShotListener implements BufferListener {

        final AtomicInteger buffers = new AtomicInteger();

        final AtomicInteger destroyed = new AtomicInteger();

        @Override
        public Reply notifyBufferAvailable(Buffer buffer) {
            takeOwnership(buffer.getMemorySegment());
            buffers.incrementAndGet();
            giveUp(buffer); // re-enters the pool from inside a notification: no lock may be held here
            return Reply.TAKEN;
        }

        @Override
        public void notifyBufferDestroyed() {
            destroyed.incrementAndGet();
        }

        int events() {
            return buffers.get() + destroyed.get();
        }
    }

    // H-1, H-3, LBP-5, NBP-6, BPF-2, LBP-10 under contention
    @Test
    void poolsListenersAndExclusiveSegments_churnConcurrently_andEverySegmentComesBack() throws Exception {
        int total = 64;
        NetworkBufferPool global = new NetworkBufferPool(total, 64, Duration.ofSeconds(60));
        LocalBufferPool shared = global.createBufferPool(4, 16);
        int workers = 4;
        int iterations = 1500;
        BlockingQueue<Buffer> toRecycleElsewhere = new LinkedBlockingQueue<>();
        List<OneShotListener> listeners = new CopyOnWriteArrayList<>();
        AtomicInteger refusedPools = new AtomicInteger();
        AtomicInteger refusedExclusive = new AtomicInteger();
        AtomicInteger exclusiveGranted = new AtomicInteger();
        AtomicBoolean workersDone = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);

        List<BackgroundTask<Void>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            Random random = new Random(1000 + w);
            running.add(BackgroundTask.start("worker-" + w, () -> {
                start.await();
                for (int i = 0; i < iterations; i++) {
                    churnOnce(global, shared, random, toRecycleElsewhere, listeners, refusedPools);
                }
                return null;
            }));
        }
        BackgroundTask<Void> exclusiveUser = BackgroundTask.start("exclusive-user", () -> {
            Random random = new Random(99);
            start.await();
            while (!workersDone.get()) {
                int wanted = 1 + random.nextInt(8);
                List<MemorySegment> segments;
                try {
                    segments = global.requestUnpooledMemorySegments(wanted);
                } catch (IOException e) {
                    // only "does not fit now" is acceptable here; a timeout would mean pools kept their excess
                    assertTrue(e.getMessage().startsWith("Insufficient number of network buffers"), e.getMessage());
                    refusedExclusive.incrementAndGet();
                    Thread.yield();
                    continue;
                }
                assertEquals(wanted, segments.size());
                segments.forEach(BufferPoolStressTest.this::takeOwnership);
                segments.forEach(inUse::remove);
                global.recycleUnpooledMemorySegments(segments);
                exclusiveGranted.incrementAndGet();
            }
            return null;
        });
        BackgroundTask<Void> recycler = BackgroundTask.start("cross-thread-recycler", () -> {
            start.await();
            while (true) {
                Buffer buffer = toRecycleElsewhere.poll(50, TimeUnit.MILLISECONDS);
                if (buffer != null) {
                    giveUp(buffer);
                } else if (workersDone.get()) {
                    return null;
                }
            }
        });
        start.countDown();

        try {
            awaitAll(running);
        } finally {
            workersDone.set(true);
        }
        exclusiveUser.result().get(100, TimeUnit.SECONDS);
        recycler.result().get(100, TimeUnit.SECONDS);

        for (OneShotListener listener : listeners) {
            assertEquals(1, listener.events(), "a registered listener gets exactly one buffer or one destroy");
        }
        assertTrue(listeners.size() > 100, "listeners registered: " + listeners.size());
        assertTrue(exclusiveGranted.get() > 0, "exclusive requests granted: " + exclusiveGranted.get());
        assertTrue(inUse.isEmpty(), inUse.size() + " segments still marked in use");
        shared.lazyDestroy();
        assertEquals(0, global.getNumberOfRegisteredBufferPools());
        assertEquals(global.getTotalNumberOfMemorySegments(), global.getNumberOfAvailableMemorySegments());
        assertEquals(total, global.getNumberOfAvailableMemorySegments());
        global.destroy();
    }

    /**
     * One worker round: a buffer of the shared pool (taken first, while holding nothing, so that waiting cannot
     * close a cycle), a private pool with a random share, requests, maybe a listener, recycling on this or another
     * thread, and the pool's destruction before or after its buffers come back.
     */
    private void churnOnce(NetworkBufferPool global, LocalBufferPool shared, Random random,
                           BlockingQueue<Buffer> toRecycleElsewhere, List<OneShotListener> listeners,
                           AtomicInteger refusedPools) throws InterruptedException {
        Buffer fromShared = shared.requestBufferBlocking();
        takeOwnership(fromShared.getMemorySegment());
        LocalBufferPool pool;
        try {
            pool = global.createBufferPool(1 + random.nextInt(3), 3 + random.nextInt(12));
        } catch (IOException e) {
            assertTrue(e.getMessage().startsWith("Insufficient number of network buffers"), e.getMessage());
            refusedPools.incrementAndGet();
            giveUp(fromShared);
            return;
        }
        List<Buffer> held = new ArrayList<>();
        for (int wanted = random.nextInt(6); wanted > 0; wanted--) {
            Buffer buffer = pool.requestBuffer();
            if (buffer == null) {
                break;
            }
            held.add(buffer);
        }
        if (held.isEmpty()) {
            held.add(pool.requestBufferBlocking()); // the pool's minimum guarantees this ends
        }
        held.forEach(buffer -> takeOwnership(buffer.getMemorySegment()));
        if (random.nextBoolean()) {
            OneShotListener listener = new OneShotListener();
            if (pool.addBufferListener(listener)) {
                listeners.add(listener);
            }
        }
        boolean destroyFirst = random.nextInt(3) == 0;
        if (destroyFirst) {
            pool.lazyDestroy();
        }
        for (Buffer buffer : held) {
            if (random.nextBoolean()) {
                giveUp(buffer);
            } else if (!toRecycleElsewhere.offer(buffer)) {
                fail("unbounded queue refused a buffer");
            }
        }
        if (!destroyFirst) {
            pool.lazyDestroy();
        }
        giveUp(fromShared);
    }
}
