package io.sluice.buffers;

import io.sluice.testing.BackgroundTask;
import io.sluice.testing.Await;
import static io.sluice.buffers.GlobalPools.SEGMENT_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Accounting, exclusive segments, destruction and availability of the global {@link NetworkBufferPool}. */
class NetworkBufferPoolTest {

    private final GlobalPools globalPools = new GlobalPools();

    @AfterEach
    void everySegmentIsBack() {
        globalPools.assertEverySegmentReturnedAndDestroy(); // H-1
    }

    private static List<Buffer> drain(LocalBufferPool pool) {
        List<Buffer> buffers = new ArrayList<>();
        for (Buffer buffer = pool.requestBuffer(); buffer != null; buffer = pool.requestBuffer()) {
            buffers.add(buffer);
        }
        return buffers;
    }

    private static void recycleAll(List<Buffer> buffers) {
        for (Buffer buffer : buffers) {
            buffer.recycleBuffer();
        }
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(20, TimeUnit.SECONDS));
        return e.getCause();
    }

    // NBP-8: a returned segment wakes one waiting pool, not all of them; every waiter is still served
    @Test
    void thousandWaitingPools_eachReturnedSegmentWakesOne_andEveryPoolIsServed() throws IOException {
        int waiters = 1000;
        NetworkBufferPool global = globalPools.create(2 * waiters);
        LocalBufferPool hog = global.createBufferPool(0, 2 * waiters);
        List<Buffer> held = drain(hog);
        assertEquals(2 * waiters, held.size(), "the hog holds every segment");
        List<LocalBufferPool> waiting = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            waiting.add(global.createBufferPool(1, 1)); // quota 1, nothing free: it waits for the global pool
        }
        long wakeUpsBefore = global.getNumberOfPoolWakeUps();

        recycleAll(held.subList(0, waiters)); // the hog is over its new share: these go to the global pool

        long wakeUps = global.getNumberOfPoolWakeUps() - wakeUpsBefore;
        for (int i = 0; i < waiters; i++) {
            assertEquals(1, waiting.get(i).getNumberOfAvailableMemorySegments(), "pool " + i + " was served");
        }
        assertEquals(waiters, wakeUps, "one wake-up per returned segment");
        recycleAll(held.subList(waiters, 2 * waiters));
        hog.lazyDestroy();
        for (LocalBufferPool pool : waiting) {
            pool.lazyDestroy();
        }
    }

    // NBP-1
    @Test
    void freshPool_countsEverySegmentFree_andOneRequestMovesCountersByOneSegment() throws IOException {
        NetworkBufferPool global = globalPools.create(10);

        assertEquals(10, global.getTotalNumberOfMemorySegments());
        assertEquals(10, global.getNumberOfAvailableMemorySegments());
        assertEquals(0, global.getNumberOfUsedMemorySegments());
        assertEquals(10L * SEGMENT_SIZE, global.getTotalMemory());
        assertEquals(10L * SEGMENT_SIZE, global.getAvailableMemory());
        assertEquals(0, global.getUsedMemory());
        assertEquals(SEGMENT_SIZE, global.getMemorySegmentSize());

        List<MemorySegment> taken = global.requestUnpooledMemorySegments(1);

        assertEquals(SEGMENT_SIZE, taken.get(0).size());
        assertTrue(taken.get(0).isOffHeap());
        assertEquals(9, global.getNumberOfAvailableMemorySegments());
        assertEquals(1, global.getNumberOfUsedMemorySegments());
        assertEquals(9L * SEGMENT_SIZE, global.getAvailableMemory());
        assertEquals(SEGMENT_SIZE, global.getUsedMemory());
        global.recycleUnpooledMemorySegments(taken);
    }

    // NBP-2
    @Test
    void destroy_zeroesEveryCounter_freesTheSegments_andRefusesNewPools() throws IOException {
        NetworkBufferPool global = globalPools.create(4);
        List<MemorySegment> exclusive = global.requestUnpooledMemorySegments(1);

        global.destroy();
        global.destroy();

        assertTrue(global.isDestroyed());
        assertEquals(0, global.getTotalNumberOfMemorySegments());
        assertEquals(0, global.getNumberOfAvailableMemorySegments());
        assertEquals(0, global.getNumberOfUsedMemorySegments());
        assertEquals(0, global.getTotalMemory());
        assertEquals(0, global.getAvailableMemory());
        assertEquals(0, global.getUsedMemory());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> global.createBufferPool(1, 1));
        assertTrue(e.getMessage().contains("destroyed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> global.requestUnpooledMemorySegments(1));
        // a segment still out when the pool was destroyed is freed when it comes back
        assertFalse(exclusive.get(0).isFreed());
        global.recycleUnpooledMemorySegments(exclusive);
        assertTrue(exclusive.get(0).isFreed());
    }

    // NBP-3
    @Test
    void destroyAllBufferPools_whileUsersHoldEveryBuffer_returnsSegmentsOnlyAsTheyAreRecycled() throws IOException {
        NetworkBufferPool global = globalPools.create(12);
        LocalBufferPool fixed = global.createBufferPool(3, 3);
        LocalBufferPool bounded = global.createBufferPool(1, 5);
        LocalBufferPool unbounded = global.createBufferPool(1, Integer.MAX_VALUE);
        List<Buffer> held = new ArrayList<>();
        held.addAll(drain(fixed));
        held.addAll(drain(bounded));
        held.addAll(drain(unbounded));
        assertEquals(12, held.size());

        global.destroyAllBufferPools();

        assertTrue(fixed.isDestroyed() && bounded.isDestroyed() && unbounded.isDestroyed());
        assertFalse(global.isDestroyed());
        assertEquals(0, global.getNumberOfRegisteredBufferPools());
        assertEquals(0, global.getNumberOfAvailableMemorySegments());
        BufferPoolDestroyedException e = assertThrows(BufferPoolDestroyedException.class, fixed::requestBuffer);
        assertTrue(e.getMessage().contains("destroyed"), e.getMessage());
        assertThrows(BufferPoolDestroyedException.class, unbounded::requestBufferBlocking);
        recycleAll(held);
        assertEquals(12, global.getNumberOfAvailableMemorySegments());
        LocalBufferPool fresh = global.createBufferPool(12, 12);
        assertEquals(12, fresh.getNumBuffers());
    }

    // NBP-4
    @Test
    void exclusiveRequest_givesKSegmentsThatRestoreTheCountWhenReturned() throws IOException {
        NetworkBufferPool global = globalPools.create(10);

        List<MemorySegment> segments = global.requestUnpooledMemorySegments(4);

        assertEquals(4, segments.size());
        assertEquals(4, segments.stream().distinct().count());
        assertEquals(6, global.getNumberOfAvailableMemorySegments());
        global.recycleUnpooledMemorySegments(segments);
        assertEquals(10, global.getNumberOfAvailableMemorySegments());
        assertTrue(global.requestUnpooledMemorySegments(0).isEmpty());
    }

    // NBP-4
    @Test
    void exclusiveRequest_ofANegativeCount_isRejected() {
        NetworkBufferPool global = globalPools.create(10);

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> global.requestUnpooledMemorySegments(-1));

        assertEquals("cannot request a negative number of segments: -1", e.getMessage());
        assertEquals(10, global.getNumberOfAvailableMemorySegments());
    }

    // NBP-5
    @Test
    void exclusiveRequest_beyondTheTotal_failsAtOnceAndTakesNothing() {
        NetworkBufferPool global = globalPools.create(10);

        IOException e = assertThrows(IOException.class, () -> global.requestUnpooledMemorySegments(11));

        assertTrue(e.getMessage().startsWith(
                "Insufficient number of network buffers: required 11, but only 10 available"), e.getMessage());
        assertTrue(e.getMessage().contains("total 10 segments"), e.getMessage());
        assertEquals(10, global.getNumberOfAvailableMemorySegments());
        assertTrue(global.isAvailable());
    }

    // NBP-5
    @Test
    void exclusiveRequest_afterAllWereTakenExclusively_failsAtOnce_untilTheyAreReturned() throws Exception {
        NetworkBufferPool global = globalPools.create(10);
        List<MemorySegment> all = global.requestUnpooledMemorySegments(10);
        CompletableFuture<?> availability = global.getAvailableFuture();

        IOException e = assertThrows(IOException.class, () -> global.requestUnpooledMemorySegments(1));

        assertTrue(e.getMessage().startsWith(
                "Insufficient number of network buffers: required 1, but only 0 available"), e.getMessage());
        assertFalse(availability.isDone());
        assertFalse(global.isAvailable());
        global.recycleUnpooledMemorySegments(all);
        assertTrue(availability.isDone());
        List<MemorySegment> again = global.requestUnpooledMemorySegments(10);
        assertEquals(10, again.size());
        global.recycleUnpooledMemorySegments(again);
    }

    // NBP-6
    @Test
    void exclusiveRequest_reclaimsTheExcessOfALocalPool_asItsBuffersAreRecycled() throws Exception {
        NetworkBufferPool global = globalPools.create(10);
        LocalBufferPool pool = global.createBufferPool(5, 10);
        List<Buffer> held = drain(pool);
        assertEquals(10, held.size());

        BackgroundTask<List<MemorySegment>> requester =
                BackgroundTask.start("exclusive-requester", () -> global.requestUnpooledMemorySegments(5));
        Await.until(() -> pool.getNumBuffers() == 5, "the local pool shrank to its new share");
        assertFalse(requester.result().isDone());
        BackgroundTask<Void> recycler = BackgroundTask.start("recycler", () -> {
            recycleAll(held);
            return null;
        });

        List<MemorySegment> exclusive = requester.result().get(20, TimeUnit.SECONDS);
        recycler.result().get(20, TimeUnit.SECONDS);
        assertEquals(5, exclusive.size());
        for (MemorySegment segment : exclusive) {
            assertNotNull(segment);
            assertFalse(segment.isFreed());
        }
        assertEquals(5, pool.getNumberOfAvailableMemorySegments());
        assertEquals(0, global.getNumberOfAvailableMemorySegments());
        global.recycleUnpooledMemorySegments(exclusive);
        assertEquals(10, pool.getNumBuffers());
    }

    /** A global pool of 4 whose only local pool's buffers are all held, and a thread blocked asking for 2. */
    private record BlockedRequest(NetworkBufferPool global, LocalBufferPool pool, List<Buffer> held,
                                  BackgroundTask<List<MemorySegment>> requester) {
    }

    private BlockedRequest blockedExclusiveRequest(Duration requestTimeout) throws IOException {
        NetworkBufferPool global = globalPools.create(4, requestTimeout);
        LocalBufferPool pool = global.createBufferPool(1, 4);
        List<Buffer> held = drain(pool);
        assertEquals(4, held.size());
        BackgroundTask<List<MemorySegment>> requester =
                BackgroundTask.start("exclusive-requester", () -> global.requestUnpooledMemorySegments(2));
        Await.until(() -> pool.getNumBuffers() == 2 && requester.isWaitingOrDone(), "the request is waiting");
        assertFalse(requester.result().isDone());
        return new BlockedRequest(global, pool, held, requester);
    }

    // NBP-7
    @Test
    void blockedExclusiveRequest_failsWhenThePoolIsDestroyed() throws IOException {
        BlockedRequest blocked = blockedExclusiveRequest(Duration.ofSeconds(30));

        blocked.global().destroy();

        Throwable failure = failureOf(blocked.requester().result());
        assertInstanceOf(IllegalStateException.class, failure);
        assertTrue(failure.getMessage().contains("destroyed"), failure.getMessage());
        assertTrue(blocked.pool().isDestroyed());
        recycleAll(blocked.held());
        for (Buffer buffer : blocked.held()) {
            assertTrue(buffer.getMemorySegment().isFreed());
        }
    }

    // NBP-7
    @Test
    void blockedExclusiveRequest_endedByInterrupt_releasesItsReservation() throws IOException {
        BlockedRequest blocked = blockedExclusiveRequest(Duration.ofSeconds(30));

        blocked.requester().thread().interrupt();

        Throwable failure = failureOf(blocked.requester().result());
        assertInstanceOf(IOException.class, failure);
        assertInstanceOf(InterruptedException.class, failure.getCause());
        assertEquals(4, blocked.pool().getNumBuffers());
        // only the pool's minimum of 1 is still required, so 3 more fit
        LocalBufferPool needsTheRest = blocked.global().createBufferPool(3, 3);
        assertEquals(3, needsTheRest.getNumBuffers());
        recycleAll(blocked.held());
    }

    // NBP-7
    @Test
    void blockedExclusiveRequest_timesOut_andReleasesItsReservation() throws IOException {
        BlockedRequest blocked = blockedExclusiveRequest(Duration.ofMillis(200));

        Throwable failure = failureOf(blocked.requester().result());

        assertInstanceOf(IOException.class, failure);
        assertTrue(failure.getMessage().startsWith("Timeout"), failure.getMessage());
        assertTrue(failure.getMessage().contains("got 0 of 2 within 200 ms"), failure.getMessage());
        assertEquals(4, blocked.pool().getNumBuffers());
        recycleAll(blocked.held());
        assertEquals(4, blocked.pool().getNumberOfAvailableMemorySegments());
        assertEquals(0, blocked.global().getNumberOfAvailableMemorySegments());
    }

    // NBP-8
    @Test
    void globalAvailability_isDoneWhileASegmentIsFree() throws IOException {
        NetworkBufferPool global = globalPools.create(2);
        assertTrue(global.getAvailableFuture().isDone());

        List<MemorySegment> first = global.requestUnpooledMemorySegments(1);
        assertTrue(global.isAvailable());
        List<MemorySegment> second = global.requestUnpooledMemorySegments(1);
        CompletableFuture<?> whileEmpty = global.getAvailableFuture();

        assertFalse(whileEmpty.isDone());
        global.recycleUnpooledMemorySegments(first);
        assertTrue(whileEmpty.isDone());
        assertTrue(global.isAvailable());
        global.recycleUnpooledMemorySegments(second);
    }

    // NBP-8
    @Test
    void localAvailability_isDoneWhileARequestWouldSucceed() throws IOException {
        NetworkBufferPool global = globalPools.create(2);
        LocalBufferPool pool = global.createBufferPool(1, 2);
        assertTrue(pool.getAvailableFuture().isDone());

        Buffer first = pool.requestBuffer();
        assertTrue(pool.isAvailable());
        Buffer second = pool.requestBuffer();
        CompletableFuture<?> whileEmpty = pool.getAvailableFuture();

        assertFalse(whileEmpty.isDone());
        assertFalse(global.isAvailable());
        first.recycleBuffer();
        assertTrue(whileEmpty.isDone());
        second.recycleBuffer();
    }

    // NBP-8
    @Test
    void twoLocalPoolsBlockedInRequests_bothWakeAndFillToTheirMax_whenGlobalSegmentsReturn() throws Exception {
        NetworkBufferPool global = globalPools.create(4);
        List<MemorySegment> exclusive = global.requestUnpooledMemorySegments(4);
        LocalBufferPool first = global.createBufferPool(0, 2);
        LocalBufferPool second = global.createBufferPool(0, 2);
        assertEquals(0, first.getNumBuffers());
        BackgroundTask<Buffer> firstWaiter = BackgroundTask.start("first-waiter", first::requestBufferBlocking);
        BackgroundTask<Buffer> secondWaiter = BackgroundTask.start("second-waiter", second::requestBufferBlocking);
        Await.until(() -> firstWaiter.isWaitingOrDone() && secondWaiter.isWaitingOrDone(), "both requests wait");
        assertFalse(firstWaiter.result().isDone() || secondWaiter.result().isDone());

        global.recycleUnpooledMemorySegments(exclusive);

        List<Buffer> held = new ArrayList<>();
        held.add(firstWaiter.result().get(20, TimeUnit.SECONDS));
        held.add(secondWaiter.result().get(20, TimeUnit.SECONDS));
        for (LocalBufferPool pool : new LocalBufferPool[] {first, second}) {
            assertEquals(2, pool.getNumBuffers());
            Buffer toMax = pool.requestBuffer();
            assertNotNull(toMax);
            held.add(toMax);
            assertNull(pool.requestBuffer());
        }
        recycleAll(held);
    }

    @Test
    void returningMoreExclusiveSegmentsThanReserved_isRefusedBeforeAnyIsTaken() throws IOException {
        NetworkBufferPool global = globalPools.create(4);
        List<MemorySegment> two = global.requestUnpooledMemorySegments(2);
        List<MemorySegment> three = new ArrayList<>(two);
        three.add(MemorySegment.allocateOffHeap(SEGMENT_SIZE));

        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> global.recycleUnpooledMemorySegments(three));

        assertEquals("returning 3 exclusive segments, but only 2 are reserved", e.getMessage());
        assertEquals(2, global.getNumberOfAvailableMemorySegments());
        global.recycleUnpooledMemorySegments(two);
    }

    @Test
    void constructor_rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new NetworkBufferPool(0, 32));
        assertThrows(IllegalArgumentException.class, () -> new NetworkBufferPool(4, 0));
        assertThrows(IllegalArgumentException.class, () -> new NetworkBufferPool(4, 32, Duration.ZERO));
    }
}
