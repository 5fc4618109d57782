package io.sluice.buffers;

import io.sluice.testing.BackgroundTask;
import io.sluice.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests, recycling, quotas, listeners, per-subpartition caps and availability of {@link LocalBufferPool}. */
class LocalBufferPoolTest {

    private static final int UNBOUNDED = Integer.MAX_VALUE;

    private final GlobalPools globalPools = new GlobalPools();

    private final NetworkBufferPool global = globalPools.create(10);

    @AfterEach
    void everySegmentIsBack() {
        globalPools.assertEverySegmentReturnedAndDestroy(); // H-1
    }

    private static List<Buffer> request(LocalBufferPool pool, int count) {
        List<Buffer> buffers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Buffer buffer = pool.requestBuffer();
            assertNotNull(buffer, "request " + i + " of " + count);
            buffers.add(buffer);
        }
        return buffers;
    }

    // LBP-3
    @Test
    void requestBeyondThePoolSize_returnsNull_andSegmentsAreTakenLazily() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 4);
        // at most one idle segment is taken ahead of requests (it makes availability exact)
        assertEquals(9, global.getNumberOfAvailableMemorySegments());

        List<Buffer> held = request(pool, 2);
        assertEquals(7, global.getNumberOfAvailableMemorySegments());
        held.addAll(request(pool, 2));

        assertNull(pool.requestBuffer());
        assertNull(pool.requestBufferBuilder());
        assertNull(pool.requestMemorySegment());
        assertEquals(6, global.getNumberOfAvailableMemorySegments());
        assertEquals(4, pool.bestEffortGetNumOfUsedBuffers());
        held.forEach(Buffer::recycleBuffer);
        assertEquals(4, pool.getNumberOfAvailableMemorySegments());
        assertEquals(0, pool.bestEffortGetNumOfUsedBuffers());
        assertEquals(6, global.getNumberOfAvailableMemorySegments());
    }

    // LBP-3: the three request kinds all hand out segments of this pool that come back to it
    @Test
    void buffersBuildersAndRawSegments_allComeBackToThePool() throws IOException {
        LocalBufferPool pool = global.createBufferPool(3, 3);

        Buffer buffer = pool.requestBuffer();
        BufferBuilder builder = pool.requestBufferBuilder();
        MemorySegment segment = pool.requestMemorySegment();

        assertSame(pool, buffer.getRecycler());
        assertEquals(0, pool.getNumberOfAvailableMemorySegments());
        buffer.recycleBuffer();
        builder.close();
        pool.recycle(segment);
        assertEquals(3, pool.getNumberOfAvailableMemorySegments());
    }

    // LBP-4
    @Test
    void destroyWhileAllBuffersAreOut_freesNothingAtOnce_thenEachRecycleReturnsOne() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 4);
        List<Buffer> held = request(pool, 4);

        pool.lazyDestroy();

        assertEquals(6, global.getNumberOfAvailableMemorySegments());
        for (int i = 0; i < 4; i++) {
            held.get(i).recycleBuffer();
            assertEquals(7 + i, global.getNumberOfAvailableMemorySegments());
        }
        pool.lazyDestroy(); // idempotent
        assertEquals(0, global.getNumberOfRegisteredBufferPools());
    }

    // LBP-4
    @Test
    void shrinkWhileAllBuffersAreOut_returnsOneSegmentPerRecycle_untilTheQuotaIsMet() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, UNBOUNDED);
        List<Buffer> held = request(pool, 10);

        pool.setNumBuffers(6);

        assertEquals(0, global.getNumberOfAvailableMemorySegments());
        for (int i = 0; i < 4; i++) {
            held.get(i).recycleBuffer();
            assertEquals(i + 1, global.getNumberOfAvailableMemorySegments());
        }
        held.get(4).recycleBuffer();
        assertEquals(4, global.getNumberOfAvailableMemorySegments());
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
        held.subList(5, 10).forEach(Buffer::recycleBuffer);
    }

    /**
     * The over-quota listener runs when a redistribution leaves more buffers out than the new quota, on the thread
     * that caused it; not when the quota still covers what is out, nor when it grows. Here the listener gives
     * back what it holds, which is what lets the exclusive request be served at once.
     */
    @Test
    void aRedistributionBelowTheBuffersOut_asksTheOverQuotaListenerForThem() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, UNBOUNDED);
        List<Buffer> held = request(pool, 8);
        List<Thread> calls = new ArrayList<>();
        pool.setOverQuotaListener(() -> {
            calls.add(Thread.currentThread());
            held.forEach(Buffer::recycleBuffer);
            held.clear();
        });

        List<MemorySegment> fits = global.requestUnpooledMemorySegments(1); // quota 9 still covers the 8 out
        assertEquals(List.of(), calls, "listener calls while the quota covers the buffers out");

        List<MemorySegment> exclusive = global.requestUnpooledMemorySegments(5); // quota 4, 8 out
        assertEquals(List.of(Thread.currentThread()), calls, "one call, on the requesting thread");
        assertEquals(5, exclusive.size());

        global.recycleUnpooledMemorySegments(exclusive);
        global.recycleUnpooledMemorySegments(fits);
        assertEquals(1, calls.size(), "growing the quota again calls nobody");
    }

    // LBP-4
    @Test
    void shrinkWhileBuffersSitIdle_returnsTheExcessAtOnce() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, UNBOUNDED);
        request(pool, 10).forEach(Buffer::recycleBuffer);
        assertEquals(10, pool.getNumberOfAvailableMemorySegments());

        pool.setNumBuffers(3);

        assertEquals(3, pool.getNumberOfAvailableMemorySegments());
        assertEquals(7, global.getNumberOfAvailableMemorySegments());
    }

    // LBP-4
    @Test
    void setNumBuffersAfterDestroy_takesNoSegments() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, UNBOUNDED);
        pool.lazyDestroy();

        pool.setNumBuffers(5);

        assertEquals(10, global.getNumberOfAvailableMemorySegments());
        assertEquals(0, pool.getNumberOfAvailableMemorySegments());
        assertThrows(BufferPoolDestroyedException.class, pool::requestBuffer);
    }

    // LBP-5
    @Test
    void listenersRegisterOnlyWhenEmpty_andEachRecycledBufferGoesToOneListenerInOrder() throws IOException {
        LocalBufferPool pool = global.createBufferPool(2, 2);
        List<Buffer> held = request(pool, 2);
        RecordingListener first = new RecordingListener(1);
        RecordingListener second = new RecordingListener(1);

        assertTrue(pool.addBufferListener(first));
        assertTrue(pool.addBufferListener(second));
        held.get(0).recycleBuffer();

        assertEquals(1, first.buffers().size());
        assertEquals(0, second.buffers().size());
        assertSame(held.get(0).getMemorySegment(), first.buffers().get(0).getMemorySegment());
        held.get(1).recycleBuffer();
        assertEquals(1, first.buffers().size());
        assertEquals(1, second.buffers().size());
        assertEquals(0, pool.getNumberOfAvailableMemorySegments());

        first.recycleAll();
        RecordingListener late = new RecordingListener(1);
        assertFalse(pool.addBufferListener(late), "a buffer is available: the caller should just request");
        assertEquals(0, late.buffers().size());
        second.recycleAll();
    }

    // LBP-5
    @Test
    void listenerThatStaysRegistered_queuesBehindTheOthers() throws IOException {
        LocalBufferPool pool = global.createBufferPool(3, 3);
        List<Buffer> held = request(pool, 3);
        RecordingListener wantsTwo = new RecordingListener(2);
        RecordingListener wantsOne = new RecordingListener(1);
        pool.addBufferListener(wantsTwo);
        pool.addBufferListener(wantsOne);

        held.forEach(Buffer::recycleBuffer);

        assertSame(held.get(0).getMemorySegment(), wantsTwo.buffers().get(0).getMemorySegment());
        assertSame(held.get(1).getMemorySegment(), wantsOne.buffers().get(0).getMemorySegment());
        assertSame(held.get(2).getMemorySegment(), wantsTwo.buffers().get(1).getMemorySegment());
        wantsTwo.recycleAll();
        wantsOne.recycleAll();
        assertEquals(3, pool.getNumberOfAvailableMemorySegments());
    }

    // LBP-5
    @Test
    void destroy_tellsAWaitingListenerExactlyOnce() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        Buffer held = pool.requestBuffer();
        RecordingListener waiting = new RecordingListener(1);
        assertTrue(pool.addBufferListener(waiting));

        pool.lazyDestroy();
        pool.lazyDestroy();
        held.recycleBuffer();

        assertEquals(1, waiting.destroyedCalls());
        assertEquals(0, waiting.buffers().size());
        assertFalse(pool.addBufferListener(new RecordingListener(1)), "a destroyed pool registers nobody");
    }

    // LBP-5: a listener asking to stay while the pool is destroyed under it is told once, not left waiting
    @Test
    void listenerAskingToStay_afterThePoolWasDestroyed_isToldDestroyed() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        Buffer held = pool.requestBuffer();
        List<Buffer> received = new ArrayList<>();
        AtomicInteger destroyedCalls = new AtomicInteger();
        pool.addBufferListener(new BufferListener() {
            @Override
            public Reply notifyBufferAvailable(Buffer buffer) {
                received.add(buffer);
                pool.lazyDestroy(); // the pool goes away while this listener holds a buffer
                return Reply.TAKEN_WANTS_MORE;
            }

            @Override
            public void notifyBufferDestroyed() {
                destroyedCalls.incrementAndGet();
            }
        });

        held.recycleBuffer();

        assertEquals(1, received.size());
        assertEquals(1, destroyedCalls.get());
        received.get(0).recycleBuffer();
    }

    // LBP-5: a failing listener surfaces on the recycling thread and leaves the pool consistent
    @Test
    void listenerThatThrows_failsTheRecycle_isDropped_andThePoolKeepsWorking() throws IOException {
        LocalBufferPool pool = global.createBufferPool(2, 2);
        List<Buffer> held = request(pool, 2);
        List<Buffer> taken = new ArrayList<>();
        pool.addBufferListener(new BufferListener() {
            @Override
            public Reply notifyBufferAvailable(Buffer buffer) {
                taken.add(buffer);
                throw new IllegalStateException("listener broke");
            }

            @Override
            public void notifyBufferDestroyed() {
                throw new AssertionError("not registered any more");
            }
        });

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> held.get(0).recycleBuffer());

        assertEquals("listener broke", e.getMessage());
        assertEquals(1, taken.size());
        held.get(1).recycleBuffer();
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
        taken.get(0).recycleBuffer();
        assertEquals(2, pool.getNumberOfAvailableMemorySegments());
    }

    // LBP-5: a recycled buffer passes declining listeners in a loop, on any thread's stack however many there are
    @Test
    void thousandsOfListenersThatDecline_passTheBufferOnInALoop_toTheFirstThatTakesIt() throws Exception {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        Buffer held = pool.requestBuffer();
        List<DecliningListener> decliners = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            DecliningListener listener = new DecliningListener();
            assertTrue(pool.addBufferListener(listener));
            decliners.add(listener);
        }
        RecordingListener taker = new RecordingListener(1);
        assertTrue(pool.addBufferListener(taker));
        RecordingListener behind = new RecordingListener(1);
        assertTrue(pool.addBufferListener(behind));

        // A small stack: one nested hand-off per listener would overflow it long before the last one.
        BackgroundTask.startWithStack("small-stack-recycler", 256 * 1024, held::recycleBuffer).await();

        for (DecliningListener decliner : decliners) {
            assertEquals(1, decliner.offers.get(), "each declining listener is asked once and then removed");
        }
        assertEquals(1, taker.buffers().size(), "the first listener that takes it gets it");
        assertSame(held.getMemorySegment(), taker.buffers().get(0).getMemorySegment());
        assertEquals(0, behind.buffers().size(), "the one behind it still waits");
        taker.recycleAll();
        assertEquals(1, behind.buffers().size());
        behind.recycleAll();
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
        pool.lazyDestroy();
    }

    // LBP-5, LBP-4: a buffer every listener declines goes back to the pool, or to the global pool above the quota
    @Test
    void bufferEveryListenerDeclines_isIdleInThePool_orGoesToTheGlobalPoolWhenThePoolShrankMeanwhile()
            throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 2);
        pool.setNumBuffers(2);
        List<Buffer> held = request(pool, 2);
        DecliningListener first = new DecliningListener();
        DecliningListener second = new DecliningListener();
        assertTrue(pool.addBufferListener(first));
        assertTrue(pool.addBufferListener(second));

        held.get(0).recycleBuffer();
        assertEquals(1, pool.getNumberOfAvailableMemorySegments(), "nobody took it: idle in the pool");
        assertEquals(1, first.offers.get());
        assertEquals(1, second.offers.get());

        assertTrue(pool.isAvailable(), "an idle segment makes the pool available");
        Buffer again = pool.requestBuffer();
        DecliningListener third = new DecliningListener();
        assertTrue(pool.addBufferListener(third));
        pool.setNumBuffers(1);
        again.recycleBuffer();
        assertEquals(0, third.offers.get(), "above the quota the segment goes to the global pool, offered to nobody");
        held.get(1).recycleBuffer();
        assertEquals(1, third.offers.get());
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
        pool.lazyDestroy();
    }

    /** Declines every buffer, counting the offers. */
    private static final class DecliningListener implements BufferListener {

        final AtomicInteger offers = new AtomicInteger();

        @Override
        public Reply notifyBufferAvailable(Buffer buffer) {
            offers.incrementAndGet();
            return Reply.DECLINED;
        }

        @Override
        public void notifyBufferDestroyed() {
        }
    }

    // LBP-5: capacity freed elsewhere also reaches a waiting listener
    @Test
    void waitingListener_getsABuffer_whenThePoolsShareGrows() throws IOException {
        LocalBufferPool waitingPool = global.createBufferPool(1, UNBOUNDED);
        LocalBufferPool other = global.createBufferPool(1, UNBOUNDED);
        List<Buffer> held = request(waitingPool, 5);
        RecordingListener listener = new RecordingListener(1);
        assertTrue(waitingPool.addBufferListener(listener));

        other.lazyDestroy();

        assertEquals(1, listener.buffers().size());
        listener.recycleAll();
        held.forEach(Buffer::recycleBuffer);
    }

    // LBP-7
    @Test
    void boundedPool_neverHoldsMoreThanMinOfSizeAndMax_andRefusesASizeBelowItsMinimum() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 2);
        List<Buffer> held = new ArrayList<>();

        pool.setNumBuffers(1);
        held.add(pool.requestBuffer());
        assertNull(pool.requestBuffer());
        assertTrue(pool.getNumberOfAvailableMemorySegments() <= 1);

        pool.setNumBuffers(2);
        held.add(pool.requestBuffer());
        assertNull(pool.requestBuffer());

        pool.setNumBuffers(3);
        assertEquals(2, pool.getNumBuffers());
        assertNull(pool.requestBuffer());
        held.forEach(Buffer::recycleBuffer);
        assertEquals(2, pool.getNumberOfAvailableMemorySegments());

        pool.setNumBuffers(1);
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
        assertEquals(9, global.getNumberOfAvailableMemorySegments());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.setNumBuffers(0));
        assertTrue(e.getMessage().startsWith("buffer pool size 0 is below its required minimum 1"), e.getMessage());
        assertEquals(1, pool.getNumBuffers());
    }

    // LBP-8
    @Test
    void subpartitionAtItsCap_makesThePoolUnavailable_butRequestsStillSucceed() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 10, 2, 2);
        assertEquals(2, pool.getNumberOfSubpartitions());
        assertEquals(2, pool.getMaxBuffersPerSubpartition());
        BufferBuilder first = pool.requestBufferBuilder(0);
        assertTrue(pool.isAvailable());

        BufferBuilder second = pool.requestBufferBuilder(0);

        CompletableFuture<?> whileCapped = pool.getAvailableFuture();
        assertFalse(whileCapped.isDone());
        BufferBuilder third = pool.requestBufferBuilder(0);
        BufferBuilder otherSubpartition = pool.requestBufferBuilder(1);
        assertNotNull(third);
        assertNotNull(otherSubpartition);
        third.close();
        assertFalse(whileCapped.isDone(), "subpartition 0 still holds its cap of 2");
        first.close();
        assertTrue(whileCapped.isDone());
        assertTrue(pool.isAvailable());
        second.close();
        otherSubpartition.close();
    }

    // LBP-8
    @Test
    void subpartitionOutsideThePool_isRejected() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 10, 2, 2);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.requestBufferBuilder(2));

        assertTrue(e.getMessage().startsWith("subpartition 2 outside [0, 2)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool.requestBufferBuilderBlocking(-1));
        assertEquals(0, pool.bestEffortGetNumOfUsedBuffers());
    }

    // LBP-9
    @Test
    void availability_alwaysPredictsWhetherTheNextRequestSucceeds() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 3);
        List<MemorySegment> exclusive = new ArrayList<>();
        List<Buffer> held = new ArrayList<>();
        Random random = new Random(7);
        int requests = 0;
        int refusals = 0;
        for (int step = 0; step < 2000; step++) {
            switch (random.nextInt(5)) {
                case 0:
                case 1:
                    boolean predicted = pool.isAvailable();
                    Buffer buffer = pool.requestBuffer();
                    assertEquals(predicted, buffer != null, "step " + step + ": " + pool);
                    if (buffer != null) {
                        held.add(buffer);
                        requests++;
                    } else {
                        refusals++;
                    }
                    break;
                case 2:
                    if (!held.isEmpty()) {
                        held.remove(random.nextInt(held.size())).recycleBuffer();
                    }
                    break;
                case 3:
                    pool.setNumBuffers(1 + random.nextInt(3));
                    break;
                default:
                    // exclusive segments shrink the pool's share and come back later; taking at most the free
                    // ones never waits for this thread's own buffers
                    int free = global.getNumberOfAvailableMemorySegments();
                    if (exclusive.isEmpty() && free > 0) {
                        exclusive.addAll(global.requestUnpooledMemorySegments(Math.min(free, 9)));
                    } else if (!exclusive.isEmpty()) {
                        global.recycleUnpooledMemorySegments(exclusive);
                        exclusive.clear();
                    }
                    break;
            }
        }
        assertTrue(requests > 100 && refusals > 100, requests + " requests, " + refusals + " refusals");
        held.forEach(Buffer::recycleBuffer);
        global.recycleUnpooledMemorySegments(exclusive);
    }

    // LBP-10
    @Test
    void blockedRequest_isWokenByTheShareOfAPoolDestroyedAndRecycledElsewhere() throws Exception {
        NetworkBufferPool small = globalPools.create(4);
        LocalBufferPool waiting = small.createBufferPool(1, UNBOUNDED);
        LocalBufferPool other = small.createBufferPool(1, UNBOUNDED);
        List<Buffer> held = request(waiting, 2);
        List<Buffer> otherHeld = request(other, 2);
        BackgroundTask<Buffer> requester = BackgroundTask.start("blocked-requester", waiting::requestBufferBlocking);
        Await.until(requester::isWaitingOrDone, "the request waits");
        assertFalse(requester.result().isDone());

        other.lazyDestroy();
        assertEquals(4, waiting.getNumBuffers());
        otherHeld.get(0).recycleBuffer();

        Buffer woken = requester.result().get(20, TimeUnit.SECONDS);
        assertSame(otherHeld.get(0).getMemorySegment(), woken.getMemorySegment());
        woken.recycleBuffer();
        otherHeld.get(1).recycleBuffer();
        held.forEach(Buffer::recycleBuffer);
    }

    // LBP-2 (our pools have no reserveSegments: a blocked request plays its part)
    @Test
    void blockedRequest_survivesRepeatedInterrupts_andEndsWhenThePoolIsDestroyed() throws Exception {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        Buffer held = pool.requestBuffer();
        AtomicInteger interrupts = new AtomicInteger();
        BackgroundTask<RuntimeException> requester = BackgroundTask.start("interrupted-requester", () -> {
            while (true) {
                try {
                    pool.requestBufferBlocking().recycleBuffer();
                    throw new AssertionError("got a buffer from a pool whose only buffer is held");
                } catch (InterruptedException e) {
                    interrupts.incrementAndGet();
                } catch (BufferPoolDestroyedException e) {
                    return e;
                }
            }
        });
        for (int i = 1; i <= 5; i++) {
            Await.until(requester::isWaitingOrDone, "the request waits");
            requester.thread().interrupt();
            int expected = i;
            Await.until(() -> interrupts.get() == expected, "interrupt " + i + " ended the wait");
        }

        pool.lazyDestroy();

        RuntimeException ended = requester.result().get(20, TimeUnit.SECONDS);
        assertInstanceOf(BufferPoolDestroyedException.class, ended);
        assertTrue(ended.getMessage().contains("destroyed"), ended.getMessage());
        held.recycleBuffer();
        assertEquals(0, global.getNumberOfUsedMemorySegments());
    }

    // LBP-1 (requests on a destroyed pool)
    @Test
    void everyRequestOnADestroyedPool_throwsBufferPoolDestroyedException() throws Exception {
        LocalBufferPool pool = global.createBufferPool(1, 4, 2, 2);
        pool.lazyDestroy();

        assertTrue(pool.isDestroyed());
        assertThrows(BufferPoolDestroyedException.class, pool::requestBuffer);
        assertThrows(BufferPoolDestroyedException.class, pool::requestBufferBuilder);
        assertThrows(BufferPoolDestroyedException.class, () -> pool.requestBufferBuilder(1));
        assertThrows(BufferPoolDestroyedException.class, pool::requestMemorySegment);
        assertThrows(BufferPoolDestroyedException.class, pool::requestBufferBlocking);
        assertThrows(BufferPoolDestroyedException.class, () -> pool.requestBufferBuilderBlocking(0));
        assertTrue(pool.getAvailableFuture().isDone(), "nobody may wait forever on a destroyed pool");
    }

    // LBP-6 in miniature; the full 128-thread version is in BufferPoolStressTest
    @Test
    void blockingRequest_waitsForARecycleOnAnotherThread() throws Exception {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        Buffer held = pool.requestBuffer();
        CompletableFuture<?> availability = pool.getAvailableFuture();
        BackgroundTask<BufferBuilder> requester = BackgroundTask.start("requester", () -> pool.requestBufferBuilderBlocking(0));
        Await.until(requester::isWaitingOrDone, "the request waits");
        assertFalse(requester.result().isDone());

        held.recycleBuffer();

        BufferBuilder builder = requester.result().get(20, TimeUnit.SECONDS);
        assertTrue(availability.isDone());
        BufferConsumer consumer = builder.createBufferConsumer();
        Buffer built = consumer.build();
        assertSame(held.getMemorySegment(), built.getMemorySegment());
        built.recycleBuffer();
        consumer.close();
        builder.close();
        assertEquals(1, pool.getNumberOfAvailableMemorySegments());
    }

    @Test
    void createBufferPool_rejectsInconsistentLimits() {
        assertThrows(IllegalArgumentException.class, () -> global.createBufferPool(-1, 4));
        assertThrows(IllegalArgumentException.class, () -> global.createBufferPool(5, 4));
        assertThrows(IllegalArgumentException.class, () -> global.createBufferPool(0, 0));
        assertThrows(IllegalArgumentException.class, () -> global.createBufferPool(1, 4, 2, 0));
        assertEquals(0, global.getNumberOfRegisteredBufferPools());
    }

    // Overdraft (Flink's max-overdraft-buffers-per-gate): beyond the quota, from the global pool's free segments only
    @Test
    void overdraft_takesUpToItsAllowanceBeyondTheQuota_keepsThePoolUnavailable_andGoesBackToTheGlobalPool()
            throws IOException {
        LocalBufferPool pool = global.createBufferPool(2, 2);
        BufferBuilder first = pool.requestBufferBuilder(0);
        BufferBuilder second = pool.requestBufferBuilder(0);
        assertNull(pool.requestBufferBuilder(0), "the quota is used up");
        assertNull(pool.requestOverdraftBufferBuilder(0), "no overdraft by default");

        pool.setMaxOverdraftBuffers(2);
        BufferBuilder overdraft1 = pool.requestOverdraftBufferBuilder(0);
        BufferBuilder overdraft2 = pool.requestOverdraftBufferBuilder(0);

        assertNotNull(overdraft1);
        assertNotNull(overdraft2);
        assertNull(pool.requestOverdraftBufferBuilder(0), "the allowance is used up");
        assertEquals(2, pool.getNumberOfOverdraftBuffers());
        assertEquals(6, global.getNumberOfAvailableMemorySegments(), "2 of the quota and 2 overdraft are out");
        assertFalse(pool.isAvailable(), "unavailable while overdraft is out");

        overdraft1.close();
        assertEquals(7, global.getNumberOfAvailableMemorySegments(), "a segment above the quota goes back at once");
        assertEquals(1, pool.getNumberOfOverdraftBuffers());
        first.close();
        assertEquals(8, global.getNumberOfAvailableMemorySegments());
        assertEquals(0, pool.getNumberOfOverdraftBuffers(), "the pool holds no more than its quota");
        assertFalse(pool.isAvailable(), "still no idle segment");
        overdraft2.close();
        assertTrue(pool.isAvailable(), "back within the quota, the recycled segment stays idle here");
        second.close();
        assertThrows(IllegalArgumentException.class, () -> pool.setMaxOverdraftBuffers(-1));
        pool.lazyDestroy();
    }

    @Test
    void overdraft_neverTakesWhatTheGlobalPoolDoesNotHave() throws IOException {
        LocalBufferPool pool = global.createBufferPool(1, 1);
        LocalBufferPool other = global.createBufferPool(9, 9);
        List<Buffer> everything = request(other, 9);
        BufferBuilder own = pool.requestBufferBuilder(0);
        pool.setMaxOverdraftBuffers(5);

        assertNull(pool.requestOverdraftBufferBuilder(0), "the global pool has no free segment");
        assertEquals(0, pool.getNumberOfOverdraftBuffers());
        everything.forEach(Buffer::recycleBuffer);
        own.close();
        pool.lazyDestroy();
        other.lazyDestroy();
    }
}
