package io.sluice.buffers;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole memory budget of one environment: N off-heap segments of one size, allocated once at construction.
 * Hands segments to {@link LocalBufferPool}s (lazily, up to each pool's current size) and as exclusive
 * ("unpooled") segments, and keeps every pool's size at its fair share of what is not reserved.
 *
 * <p>Accounting: <em>required</em> segments = the minimums of all local pools + exclusive segments reserved. A
 * request that would push it above the total fails at once. The rest is spread over the local pools by
 * {@link FairShare} whenever a pool is created or destroyed or exclusive segments are taken or returned.
 *
 * <p>Threads: any thread. Lock order (outermost first), so that no two threads can wait on each other:
 * <ol>
 *   <li>{@link #factoryLock}: pool registry, required-segment accounting, redistribution;</li>
 *   <li>the lock of ONE {@link LocalBufferPool} (never two at once);</li>
 *   <li>{@link #segmentLock}: the free-segment queue and the availability future; nothing is called while held.</li>
 * </ol>
 * Futures are completed and listeners called only with no lock held: segments returned while a lock is held are
 * handed back after it is released.
 */
public final class NetworkBufferPool {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkBufferPool.class);

    private static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** The cancellation of a request that nobody cancels. */
    private static final CompletableFuture<?> NEVER_CANCELLED = new CompletableFuture<>();

    private static final String RAISE_HINT = "raise shuffle.memory.total (or use fewer buffers per channel / gate)";

    private final int totalSegments;

    private final int segmentSize;

    private final Duration requestTimeout;

    private final ReentrantLock factoryLock = new ReentrantLock();

    private final ReentrantLock segmentLock = new ReentrantLock();

    // insertion order keeps redistribution deterministic
    @GuardedBy("factoryLock")
    private final Set<LocalBufferPool> pools = new LinkedHashSet<>();

    @GuardedBy("factoryLock")
    private int requiredByPoolMinimums;

    // reserved by requestUnpooledMemorySegments, including requests still collecting
    @GuardedBy("factoryLock")
    private int reservedExclusive;

    @GuardedBy("segmentLock")
    private final ArrayDeque<MemorySegment> freeSegments;

    // AVAILABLE while a segment is free, else a pending future completed on the next return
    @GuardedBy("segmentLock")
    private CompletableFuture<Void> availableFuture = Availability.AVAILABLE;

    // local pools waiting for a free segment, oldest first. A returned segment wakes one;
    // only when the woken pool leaves it free is the next one woken (O(1) wake-ups per segment, none lost)
    @GuardedBy("segmentLock")
    private final ArrayDeque<LocalBufferPool> waitingPools = new ArrayDeque<>();

    /** How many times a waiting local pool was woken because a segment came back; for tests and diagnostics. */
    private final AtomicLong poolWakeUps = new AtomicLong();

    /** Written under both locks (factory, then segment); volatile so that checks need neither. */
    private volatile PoolState state = PoolState.ACTIVE;

    /** A pool of {@code numberOfSegments} segments of {@code segmentSize} bytes; exclusive requests wait 30 s. */
    public NetworkBufferPool(int numberOfSegments, int segmentSize) {
        this(numberOfSegments, segmentSize, DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * A pool of {@code numberOfSegments} off-heap segments of {@code segmentSize} bytes, all allocated now.
     * Exclusive requests wait at most {@code requestTimeout} for segments to come back from local pools.
     */
    public NetworkBufferPool(int numberOfSegments, int segmentSize, Duration requestTimeout) {
        if (numberOfSegments <= 0 || segmentSize <= 0) {
            throw new IllegalArgumentException("need a positive number of segments and segment size, got "
                    + numberOfSegments + " segments of " + segmentSize + " bytes");
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive, was " + requestTimeout);
        }
        this.totalSegments = numberOfSegments;
        this.segmentSize = segmentSize;
        this.requestTimeout = requestTimeout;
        this.freeSegments = new ArrayDeque<>(numberOfSegments);
        try {
            for (int i = 0; i < numberOfSegments; i++) {
                freeSegments.add(MemorySegment.allocateOffHeap(segmentSize));
            }
        } catch (OutOfMemoryError e) {
            int allocated = freeSegments.size();
            freeAll(freeSegments);
            OutOfMemoryError withContext = new OutOfMemoryError("could not allocate " + numberOfSegments
                    + " network segments of " + segmentSize + " bytes (" + ((long) numberOfSegments * segmentSize)
                    + " bytes), failed after " + allocated + "; lower shuffle.memory.total or raise the JVM's "
                    + "-XX:MaxDirectMemorySize: " + e.getMessage());
            withContext.initCause(e);
            throw withContext;
        }
    }

    public int getMemorySegmentSize() {
        return segmentSize;
    }

    /** All segments of this pool; 0 once destroyed. */
    public int getTotalNumberOfMemorySegments() {
        return isDestroyed() ? 0 : totalSegments;
    }

    /** Segments free in the global pool right now (not in local pools, not exclusive); 0 once destroyed. */
    public int getNumberOfAvailableMemorySegments() {
        segmentLock.lock();
        try {
            return isDestroyed() ? 0 : freeSegments.size();
        } finally {
            segmentLock.unlock();
        }
    }

    /**
     * Segments not promised to anyone: the total less the local pools' minimums and the exclusive segments out.
     * This is what a new pool's minimum or a new exclusive request can still get; 0 once destroyed.
     */
    public int getNumberOfUnreservedMemorySegments() {
        factoryLock.lock();
        try {
            return isDestroyed() ? 0 : totalSegments - requiredByPoolMinimums - reservedExclusive;
        } finally {
            factoryLock.unlock();
        }
    }

    /** Segments held by local pools, their users and exclusive owners; 0 once destroyed. */
    public int getNumberOfUsedMemorySegments() {
        segmentLock.lock();
        try {
            return isDestroyed() ? 0 : totalSegments - freeSegments.size();
        } finally {
            segmentLock.unlock();
        }
    }

    public long getTotalMemory() {
        return (long) getTotalNumberOfMemorySegments() * segmentSize;
    }

    public long getAvailableMemory() {
        return (long) getNumberOfAvailableMemorySegments() * segmentSize;
    }

    public long getUsedMemory() {
        return (long) getNumberOfUsedMemorySegments() * segmentSize;
    }

    /**
     * Takes {@code numberOfSegments} exclusive segments, all or nothing. The caller owns them and gives them back
     * with {@link #recycleUnpooledMemorySegments}.
     *
     * <p>Fails at once with an IOException ("Insufficient number of network buffers ...") when the segments
     * reserved by pool minimums and exclusive requests plus this request exceed the total. Otherwise reserves
     * them, shrinks local pools to their new fair share and waits (up to the request timeout) for their excess to
     * come back. On any failure nothing stays reserved.
     *
     * @throws IOException not enough segments at all; the timeout passed ("Timeout ..."); interrupted (the cause
     *                     is the InterruptedException and the thread's interrupt flag is set again)
     * @throws IllegalStateException the pool is or gets destroyed
     */
    public List<MemorySegment> requestUnpooledMemorySegments(int numberOfSegments) throws IOException {
        return requestUnpooledMemorySegments(numberOfSegments, NEVER_CANCELLED);
    }

    /**
     * Like {@link #requestUnpooledMemorySegments(int)}, but gives up as soon as {@code cancellation} completes (in
     * any way): a waiting request then wakes at once, drops its reservation, returns what it collected and throws
     * {@link RequestCancelledException}. A request cancelled before it starts waiting fails the same way.
     *
     * @param cancellation completed by the requester's owner (e.g. a gate closed during its setup) to end the wait
     * @throws RequestCancelledException the cancellation completed before every segment was collected
     */
    public List<MemorySegment> requestUnpooledMemorySegments(int numberOfSegments, CompletableFuture<?> cancellation)
            throws IOException {
        if (numberOfSegments < 0) {
            throw new IllegalArgumentException("cannot request a negative number of segments: " + numberOfSegments);
        }
        checkNotDestroyed("request exclusive segments");
        if (numberOfSegments == 0) {
            return new ArrayList<>(0);
        }
        reserveExclusive(numberOfSegments);
        List<MemorySegment> segments = new ArrayList<>(numberOfSegments);
        boolean success = false;
        try {
            collectExclusive(segments, numberOfSegments, cancellation);
            success = true;
            return segments;
        } finally {
            if (!success) {
                Redistribution redistribution = releaseExclusive(numberOfSegments);
                returnSegments(segments);
                redistribution.apply();
            }
        }
    }

    /** Gives back exclusive segments from {@link #requestUnpooledMemorySegments}; the caller must not touch them. */
    public void recycleUnpooledMemorySegments(Collection<MemorySegment> segments) {
        Redistribution redistribution = releaseExclusive(segments.size()); // checks the count before taking any
        returnSegments(segments);
        redistribution.apply();
    }

    /**
     * A local pool that always gets at least {@code numberOfRequiredSegments} and at most {@code maxUsedSegments}
     * ({@link Integer#MAX_VALUE} = unbounded) segments.
     *
     * @throws IOException "Insufficient number of network buffers: required X, but only Y available ..." when the
     *                     minimums of all pools and the exclusive segments would exceed the total; nothing changes
     * @throws IllegalStateException this pool is destroyed
     */
    public LocalBufferPool createBufferPool(int numberOfRequiredSegments, int maxUsedSegments) throws IOException {
        return createBufferPool(numberOfRequiredSegments, maxUsedSegments, 0, Integer.MAX_VALUE);
    }

    /**
     * Like {@link #createBufferPool(int, int)}, with a cap per subpartition: one subpartition may hold at most
     * {@code maxBuffersPerSubpartition} buffers requested through
     * {@link LocalBufferPool#requestBufferBuilder(int)} before the pool reports itself unavailable
     * ({@link Integer#MAX_VALUE} = no cap).
     */
    public LocalBufferPool createBufferPool(int numberOfRequiredSegments, int maxUsedSegments,
                                            int numberOfSubpartitions, int maxBuffersPerSubpartition)
            throws IOException {
        if (numberOfRequiredSegments < 0 || maxUsedSegments < Math.max(1, numberOfRequiredSegments)) {
            throw new IllegalArgumentException("need 0 <= required <= max and max >= 1, got required "
                    + numberOfRequiredSegments + ", max " + maxUsedSegments);
        }
        if (numberOfSubpartitions < 0 || maxBuffersPerSubpartition <= 0) {
            throw new IllegalArgumentException("need subpartitions >= 0 and max buffers per subpartition > 0, got "
                    + numberOfSubpartitions + " subpartitions, " + maxBuffersPerSubpartition + " buffers each");
        }
        Redistribution redistribution;
        LocalBufferPool pool;
        factoryLock.lock();
        try {
            checkNotDestroyed("create a buffer pool");
            int required = requiredByPoolMinimums + reservedExclusive;
            if (numberOfRequiredSegments > totalSegments - required) {
                throw insufficient(numberOfRequiredSegments, "for a new buffer pool");
            }
            pool = new LocalBufferPool(this, numberOfRequiredSegments, maxUsedSegments, numberOfSubpartitions,
                    maxBuffersPerSubpartition);
            requiredByPoolMinimums += numberOfRequiredSegments;
            pools.add(pool);
            redistribution = redistributeLocked();
        } finally {
            factoryLock.unlock();
        }
        try {
            redistribution.apply();
        } catch (RuntimeException e) {
            pool.lazyDestroy(); // the caller never gets the pool, so it must not keep its share
            throw e;
        }
        return pool;
    }

    public int getNumberOfRegisteredBufferPools() {
        factoryLock.lock();
        try {
            return pools.size();
        } finally {
            factoryLock.unlock();
        }
    }

    /**
     * Done while at least one segment is free; a pending future completes when one comes back. Local pools do not
     * wait on it (they queue with {@link #waitForSegment}); it is for exclusive requests and observers.
     */
    public CompletableFuture<?> getAvailableFuture() {
        segmentLock.lock();
        try {
            return availableFuture;
        } finally {
            segmentLock.unlock();
        }
    }

    public boolean isAvailable() {
        return getAvailableFuture().isDone();
    }

    /**
     * Destroys every local pool (see {@link LocalBufferPool#lazyDestroy()}); this pool stays usable. Segments
     * still out in buffers come back when those are recycled.
     */
    public void destroyAllBufferPools() {
        List<LocalBufferPool> snapshot;
        factoryLock.lock();
        try {
            snapshot = new ArrayList<>(pools);
        } finally {
            factoryLock.unlock();
        }
        for (LocalBufferPool pool : snapshot) {
            pool.lazyDestroy();
        }
    }

    /**
     * Destroys this pool: destroys the local pools, frees every segment that is back, and frees the others as
     * they come back. Blocked exclusive requests fail; counters read 0; new pools fail. Idempotent.
     */
    public void destroy() {
        factoryLock.lock();
        try {
            if (state == PoolState.DESTROYED) {
                return;
            }
            segmentLock.lock();
            try {
                state = PoolState.DESTROYED;
            } finally {
                segmentLock.unlock();
            }
        } finally {
            factoryLock.unlock();
        }
        destroyAllBufferPools();
        CompletableFuture<Void> toComplete;
        int outstanding;
        segmentLock.lock();
        try {
            outstanding = totalSegments - freeSegments.size();
            freeAll(freeSegments);
            toComplete = availableFuture;
            availableFuture = Availability.AVAILABLE; // nothing may wait on a destroyed pool
        } finally {
            segmentLock.unlock();
        }
        toComplete.complete(null); // wakes blocked exclusive requests, which then see the destroyed state
        segmentLock.lock();
        try {
            waitingPools.clear(); // destroyed pools: nobody will serve them
        } finally {
            segmentLock.unlock();
        }
        if (outstanding > 0) {
            LOG.debug("network buffer pool destroyed with {} of {} segments still in use; they are freed when "
                    + "returned", outstanding, totalSegments);
        }
    }

    /** How many times a local pool waiting for a segment was woken so far (each wake-up costs the pool a settle). */
    public long getNumberOfPoolWakeUps() {
        return poolWakeUps.get();
    }

    /** A waiting local pool is being woken; called by the pool. */
    void countPoolWakeUp() {
        poolWakeUps.incrementAndGet();
    }

    public boolean isDestroyed() {
        return state == PoolState.DESTROYED;
    }

    @Override
    public String toString() {
        return "NetworkBufferPool[" + totalSegments + " x " + segmentSize + " bytes, " + state + "]";
    }

    // ---------------------------------------------------------------- for LocalBufferPool (package-private)

    /** Takes one free segment or returns null; never blocks, calls nothing. Any lock may be held (innermost). */
    MemorySegment pollSegment() {
        segmentLock.lock();
        try {
            if (state == PoolState.DESTROYED) {
                return null;
            }
            MemorySegment segment = freeSegments.poll();
            if (segment != null && freeSegments.isEmpty()) {
                availableFuture = new CompletableFuture<>();
            }
            return segment;
        } finally {
            segmentLock.unlock();
        }
    }

    /**
     * Queues a local pool that found no free segment; it is woken ({@code onGlobalPoolAvailable}, on the returning
     * thread, no lock held) when a segment comes back and it is the oldest waiter.
     *
     * @return false, queuing nothing, when a segment is free now or this pool is destroyed: the caller tries again
     */
    boolean waitForSegment(LocalBufferPool pool) {
        segmentLock.lock();
        try {
            if (state == PoolState.DESTROYED || !freeSegments.isEmpty()) {
                return false;
            }
            waitingPools.add(pool);
            return true;
        } finally {
            segmentLock.unlock();
        }
    }

    /**
     * Takes back one pooled segment (freed if this pool is destroyed). MUST be called with no lock held: it may
     * complete the availability future and wake a waiting pool, which run on this thread.
     */
    void returnSegment(MemorySegment segment) {
        CompletableFuture<Void> toComplete;
        segmentLock.lock();
        try {
            toComplete = addFreeLocked(segment);
        } finally {
            segmentLock.unlock();
        }
        if (toComplete != null) {
            toComplete.complete(null);
        }
        wakeWaitingPools();
    }

    /**
     * Wakes waiting pools, oldest first, one at a time while a segment is still free after the previous one's
     * turn: a pool that takes the segment ends the round, so one returned segment costs one wake-up. No lock held.
     */
    private void wakeWaitingPools() {
        while (true) {
            LocalBufferPool next;
            segmentLock.lock();
            try {
                if (freeSegments.isEmpty() || state == PoolState.DESTROYED) {
                    return;
                }
                next = waitingPools.poll();
            } finally {
                segmentLock.unlock();
            }
            if (next == null) {
                return;
            }
            next.onGlobalPoolAvailable();
        }
    }

    /** Like {@link #returnSegment} for many; no lock may be held. */
    void returnSegments(Collection<MemorySegment> segments) {
        if (segments.isEmpty()) {
            return;
        }
        CompletableFuture<Void> toComplete = null;
        segmentLock.lock();
        try {
            for (MemorySegment segment : segments) {
                CompletableFuture<Void> pending = addFreeLocked(segment);
                if (pending != null) {
                    toComplete = pending;
                }
            }
        } finally {
            segmentLock.unlock();
        }
        if (toComplete != null) {
            toComplete.complete(null);
        }
        wakeWaitingPools();
    }

    /** Unregisters a destroyed local pool and gives its share to the others. No lock may be held. */
    void unregister(LocalBufferPool pool) {
        Redistribution redistribution;
        factoryLock.lock();
        try {
            if (!pools.remove(pool)) {
                return;
            }
            requiredByPoolMinimums -= pool.getNumberOfRequiredMemorySegments();
            redistribution = redistributeLocked();
        } finally {
            factoryLock.unlock();
        }
        redistribution.apply();
    }

    // ---------------------------------------------------------------- internals

    private void reserveExclusive(int numberOfSegments) throws IOException {
        Redistribution redistribution;
        factoryLock.lock();
        try {
            checkNotDestroyed("request exclusive segments");
            int required = requiredByPoolMinimums + reservedExclusive;
            if (numberOfSegments > totalSegments - required) {
                throw insufficient(numberOfSegments, "as exclusive segments");
            }
            reservedExclusive += numberOfSegments;
            redistribution = redistributeLocked();
        } finally {
            factoryLock.unlock();
        }
        redistribution.apply();
    }

    /** Drops an exclusive reservation; the caller applies the returned redistribution after returning segments. */
    private Redistribution releaseExclusive(int numberOfSegments) {
        factoryLock.lock();
        try {
            if (numberOfSegments > reservedExclusive) {
                throw new IllegalStateException("returning " + numberOfSegments + " exclusive segments, but only "
                        + reservedExclusive + " are reserved");
            }
            reservedExclusive -= numberOfSegments;
            return redistributeLocked();
        } finally {
            factoryLock.unlock();
        }
    }

    /**
     * Collects free segments into {@code segments} until it holds {@code wanted}, waiting for returns or for the
     * cancellation. One wake-up future per wait, completed by the next return or by the cancellation (registered on
     * the cancellation once, so a long wait does not pile callbacks on it).
     */
    private void collectExclusive(List<MemorySegment> segments, int wanted, CompletableFuture<?> cancellation)
            throws IOException {
        long deadline = System.nanoTime() + requestTimeout.toNanos();
        AtomicReference<CompletableFuture<Void>> currentWake = new AtomicReference<>();
        if (cancellation != NEVER_CANCELLED) {
            cancellation.whenComplete((ignored, failure) -> {
                CompletableFuture<Void> wake = currentWake.get();
                if (wake != null) {
                    wake.complete(null);
                }
            });
        }
        while (true) {
            CompletableFuture<Void> nextReturn;
            segmentLock.lock();
            try {
                checkNotDestroyed("request exclusive segments");
                while (segments.size() < wanted && !freeSegments.isEmpty()) {
                    segments.add(freeSegments.poll());
                }
                if (freeSegments.isEmpty() && availableFuture.isDone()) {
                    availableFuture = new CompletableFuture<>();
                }
                nextReturn = availableFuture;
            } finally {
                segmentLock.unlock();
            }
            if (segments.size() == wanted) {
                return;
            }
            CompletableFuture<Void> wake = new CompletableFuture<>();
            currentWake.set(wake);
            if (cancellation.isDone()) {
                throw new RequestCancelledException("request for " + wanted + " exclusive segments cancelled with "
                        + segments.size() + " collected");
            }
            nextReturn.whenComplete((ignored, failure) -> wake.complete(null));
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new IOException("Timeout triggered when requesting exclusive segments: got " + segments.size()
                        + " of " + wanted + " within " + requestTimeout.toMillis() + " ms; local pools did not "
                        + "return their excess (buffers held elsewhere). Total " + totalSegments + " segments; "
                        + RAISE_HINT);
            }
            try {
                wake.get(remaining, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // loop once more: takes what came back and reports the timeout with the final count
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + (wanted - segments.size()) + " of " + wanted
                        + " exclusive segments", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("availability future failed; it is only ever completed normally", e);
            }
        }
    }

    /** Adds a returned segment (or frees it once destroyed); returns the future to complete after unlocking. */
    @GuardedBy("segmentLock")
    private CompletableFuture<Void> addFreeLocked(MemorySegment segment) {
        if (state == PoolState.DESTROYED) {
            segment.free();
            return null;
        }
        if (freeSegments.size() >= totalSegments) {
            throw new IllegalStateException("more segments returned than " + totalSegments + " allocated: "
                    + segment + " came back twice");
        }
        freeSegments.add(segment);
        if (availableFuture.isDone()) {
            return null;
        }
        CompletableFuture<Void> toComplete = availableFuture;
        availableFuture = Availability.AVAILABLE;
        return toComplete;
    }

    /**
     * Sets every pool's size to its fair share of the segments not required elsewhere. Caller holds the factory
     * lock; takes each pool's lock in turn (lock order 1 then 2). The returned work must run after unlocking.
     */
    @GuardedBy("factoryLock")
    private Redistribution redistributeLocked() {
        List<LocalBufferPool> snapshot = new ArrayList<>(pools);
        if (snapshot.isEmpty() || state == PoolState.DESTROYED) {
            return new Redistribution(Collections.emptyList(), Collections.emptyList());
        }
        int[] minimums = new int[snapshot.size()];
        int[] maximums = new int[snapshot.size()];
        for (int i = 0; i < minimums.length; i++) {
            minimums[i] = snapshot.get(i).getNumberOfRequiredMemorySegments();
            maximums[i] = snapshot.get(i).getMaxNumberOfMemorySegments();
        }
        int spare = totalSegments - requiredByPoolMinimums - reservedExclusive;
        int[] sizes = FairShare.distribute(minimums, maximums, spare);
        List<MemorySegment> excess = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            snapshot.get(i).resize(sizes[i], excess);
        }
        return new Redistribution(excess, snapshot);
    }

    /** Work left by a redistribution for after the factory lock is released: futures and listeners run there. */
    private final class Redistribution {

        private final List<MemorySegment> excess;

        private final List<LocalBufferPool> resized;

        Redistribution(List<MemorySegment> excess, List<LocalBufferPool> resized) {
            this.excess = excess;
            this.resized = resized;
        }

        /**
         * Returns the excess and settles every resized pool. A pool's listener that throws does not stop the
         * others from being settled; the first failure is rethrown at the end, later ones suppressed in it.
         */
        void apply() {
            returnSegments(excess);
            EveryOne.apply(resized, LocalBufferPool::onResized);
        }
    }

    @GuardedBy("factoryLock")
    private IOException insufficient(int requested, String purpose) {
        int available = totalSegments - requiredByPoolMinimums - reservedExclusive;
        return new IOException("Insufficient number of network buffers: required " + requested + ", but only "
                + available + " available (requested " + purpose + "); total " + totalSegments + " segments of "
                + segmentSize + " bytes, of which " + requiredByPoolMinimums + " are reserved by the minimums of "
                + pools.size() + " buffer pools and " + reservedExclusive + " are exclusive. To fix it, "
                + RAISE_HINT + ".");
    }

    private void checkNotDestroyed(String operation) {
        if (state == PoolState.DESTROYED) {
            throw new IllegalStateException("cannot " + operation + ": the network buffer pool is destroyed");
        }
    }

    private static void freeAll(ArrayDeque<MemorySegment> segments) {
        for (MemorySegment segment = segments.poll(); segment != null; segment = segments.poll()) {
            segment.free();
        }
    }
}
