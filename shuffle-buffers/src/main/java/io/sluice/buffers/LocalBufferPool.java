package io.sluice.buffers;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool carved from a {@link NetworkBufferPool}, created by {@link NetworkBufferPool#createBufferPool}. It owns
 * at most {@link #getNumBuffers()} segments at a time (its quota, set by the global pool's redistribution),
 * takes them from the global pool lazily, and returns any segment above its quota as soon as it is recycled.
 *
 * <p>Ownership: every buffer, builder or segment handed out belongs to the caller until it is recycled into this
 * pool (a buffer's or builder's last release does that; a raw segment goes back through {@link #recycle}).
 *
 * <p>Threads: any thread. One lock guards the pool's state; it is taken after the global pool's factory lock and
 * before its segment lock (see {@link NetworkBufferPool}), and never together with another local pool's lock.
 * Listeners are called and futures completed with no lock held.
 *
 * <p>Invariants under the lock: a listener waits only while no segment sits idle here; while idle segments are
 * missing and the quota allows more, the pool is queued among the global pool's waiting pools (so requesters
 * blocked here wake when the global pool gets segments back). The global pool wakes one waiting pool per returned
 * segment, oldest first, instead of every waiting pool.
 */
public final class LocalBufferPool implements BufferRecycler {

    private static final Logger LOG = LoggerFactory.getLogger(LocalBufferPool.class);

    /** Subpartition index for requests that do not count toward a per-subpartition cap. */
    private static final int NO_SUBPARTITION = -1;

    private final NetworkBufferPool networkBufferPool;

    private final int numberOfRequiredSegments;

    private final int maxNumberOfSegments;

    private final int numberOfSubpartitions;

    private final int maxBuffersPerSubpartition;

    /** One recycler per subpartition that decrements its count; null when there is no cap to enforce. */
    private final BufferRecycler[] subpartitionRecyclers;

    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled (under {@link #lock}) for each segment that becomes idle here, and on destroy. */
    private final Condition segmentAvailable = lock.newCondition();

    @GuardedBy("lock")
    private final ArrayDeque<MemorySegment> availableSegments = new ArrayDeque<>();

    // in registration order
    @GuardedBy("lock")
    private final ArrayDeque<BufferListener> listeners = new ArrayDeque<>();

    // taken from the global pool and not returned yet (idle here + out in buffers)
    @GuardedBy("lock")
    private int numberOfRequestedSegments;

    // the quota
    @GuardedBy("lock")
    private int currentPoolSize;

    // how many segments requestOverdraftBufferBuilder may take beyond the quota (0: none)
    @GuardedBy("lock")
    private int maxOverdraftSegments;

    // segments taken beyond the quota as overdraft and not yet returned to the global pool
    @GuardedBy("lock")
    private int overdraftSegments;

    // buffers out per subpartition; null without a cap
    @GuardedBy("lock")
    private final int[] buffersPerSubpartition;

    // how many subpartitions hold their cap (the pool is unavailable while > 0)
    @GuardedBy("lock")
    private int subpartitionsAtCap;

    // Availability.AVAILABLE while a request would succeed, else pending. Replaced only under lock; volatile so that
    // getAvailableFuture() reads it without the lock (engines such as Flink ask once per record).
    private volatile CompletableFuture<Void> availableFuture = new CompletableFuture<>();

    // queued in the global pool's waiting pools (NetworkBufferPool#waitForSegment), not yet woken
    @GuardedBy("lock")
    private boolean subscribedToGlobal;

    /** Asked to give buffers back when a redistribution leaves more of them out than the quota; or null. */
    private volatile Runnable overQuotaListener;

    /** Written under the lock; volatile for lock-free reads in {@link #isDestroyed()}. */
    private volatile PoolState state = PoolState.ACTIVE;

    LocalBufferPool(NetworkBufferPool networkBufferPool, int numberOfRequiredSegments, int maxNumberOfSegments,
                    int numberOfSubpartitions, int maxBuffersPerSubpartition) {
        this.networkBufferPool = networkBufferPool;
        this.numberOfRequiredSegments = numberOfRequiredSegments;
        this.maxNumberOfSegments = maxNumberOfSegments;
        this.numberOfSubpartitions = numberOfSubpartitions;
        this.maxBuffersPerSubpartition = maxBuffersPerSubpartition;
        boolean capped = numberOfSubpartitions > 0 && maxBuffersPerSubpartition != Integer.MAX_VALUE;
        this.buffersPerSubpartition = capped ? new int[numberOfSubpartitions] : null;
        this.subpartitionRecyclers = capped ? new BufferRecycler[numberOfSubpartitions] : null;
        for (int i = 0; capped && i < numberOfSubpartitions; i++) {
            int subpartition = i;
            subpartitionRecyclers[i] = segment -> recycle(segment, subpartition);
        }
    }

    /** A buffer over a free segment, or null if none is available now; never blocks. The caller recycles it. */
    public Buffer requestBuffer() {
        MemorySegment segment = requestSegment(NO_SUBPARTITION);
        return segment == null ? null : new Buffer(segment, this);
    }

    /**
     * A buffer, waiting as long as it takes for one to be recycled or for the global pool to give this pool one.
     *
     * @throws BufferPoolDestroyedException the pool is, or while waiting gets, destroyed
     */
    public Buffer requestBufferBlocking() throws InterruptedException {
        return new Buffer(requestSegmentBlocking(NO_SUBPARTITION), this);
    }

    /** A builder over a free segment, or null if none is available now. The caller closes it. */
    public BufferBuilder requestBufferBuilder() {
        MemorySegment segment = requestSegment(NO_SUBPARTITION);
        return segment == null ? null : new BufferBuilder(segment, this);
    }

    /**
     * A builder for {@code targetSubpartition}, or null if none is available now. Counts toward that
     * subpartition's cap until the builder's segment is recycled: at the cap the pool reports itself unavailable,
     * but requests still succeed while segments are free.
     */
    public BufferBuilder requestBufferBuilder(int targetSubpartition) {
        checkSubpartition(targetSubpartition);
        MemorySegment segment = requestSegment(targetSubpartition);
        return segment == null ? null : new BufferBuilder(segment, recyclerFor(targetSubpartition));
    }

    /** Like {@link #requestBufferBuilder(int)}, waiting for a segment (see {@link #requestBufferBlocking()}). */
    public BufferBuilder requestBufferBuilderBlocking(int targetSubpartition) throws InterruptedException {
        checkSubpartition(targetSubpartition);
        MemorySegment segment = requestSegmentBlocking(targetSubpartition);
        return new BufferBuilder(segment, recyclerFor(targetSubpartition));
    }

    /**
     * Like {@link #requestBufferBuilder(int)}, but when no segment is free within the quota, takes one from the
     * global pool's free segments beyond the quota, up to {@link #setMaxOverdraftBuffers} of them at a time
     * (Flink's overdraft buffers): a record that spans several buffers, started while the pool was available, can
     * then be completed without waiting. An overdraft segment goes back to the global pool when it is recycled;
     * while any is out the pool has no idle segment and so reports itself unavailable. Never blocks.
     *
     * @return a builder, or null when no segment is free within the quota, the overdraft is used up, or the global
     *         pool has no free segment
     */
    public BufferBuilder requestOverdraftBufferBuilder(int targetSubpartition) {
        checkSubpartition(targetSubpartition);
        MemorySegment segment = requestSegment(targetSubpartition, true);
        return segment == null ? null : new BufferBuilder(segment, recyclerFor(targetSubpartition));
    }

    /**
     * Registers the owner's way of giving buffers back early: after the global pool lowers this pool's quota below
     * the buffers its owner holds (another pool or an exclusive request needs them), {@code listener} runs once
     * per such redistribution, on the redistributing thread (the one creating a pool or requesting exclusive
     * segments), with no lock held. An owner that recycles its buffers only at its own pace (a blocking
     * partition keeps a whole region before writing it) would otherwise keep the requester waiting until it
     * happened to recycle them. The listener must not block on locks its owner may hold while it waits for
     * buffers; {@code null} removes it.
     */
    public void setOverQuotaListener(Runnable listener) {
        overQuotaListener = listener;
    }

    /**
     * Sets how many segments {@link #requestOverdraftBufferBuilder} may take beyond the quota at a time; 0 turns
     * overdraft off (the default). Applies to later requests; segments already out stay out until recycled.
     *
     * @throws IllegalArgumentException for a negative number
     */
    public void setMaxOverdraftBuffers(int maxOverdraftBuffers) {
        if (maxOverdraftBuffers < 0) {
            throw new IllegalArgumentException("max overdraft buffers must be >= 0, was " + maxOverdraftBuffers
                    + " (" + this + ")");
        }
        lock.lock();
        try {
            maxOverdraftSegments = maxOverdraftBuffers;
        } finally {
            lock.unlock();
        }
    }

    /** Overdraft segments out right now (taken beyond the quota, not yet recycled). */
    public int getNumberOfOverdraftBuffers() {
        lock.lock();
        try {
            return overdraftSegments;
        } finally {
            lock.unlock();
        }
    }

    /** A raw segment, or null if none is available now; the caller returns it through {@link #recycle}. */
    public MemorySegment requestMemorySegment() {
        return requestSegment(NO_SUBPARTITION);
    }

    /**
     * Registers {@code listener} for the next buffer if none is available now: returns true. Returns false
     * (nothing registered) if a buffer is available now (the caller should just request it) or the pool is
     * destroyed. Each recycled buffer is offered to the waiting listeners in registration order until one takes it
     * (each one that declines is removed), and goes back to the pool if none does.
     */
    public boolean addBufferListener(BufferListener listener) {
        CompletableFuture<Void> toComplete = null;
        lock.lock();
        try {
            if (state == PoolState.DESTROYED || !availableSegments.isEmpty()) {
                return false;
            }
            MemorySegment fromGlobal = takeFromGlobalLocked();
            if (fromGlobal == null) {
                listeners.add(listener);
                return true;
            }
            makeIdleLocked(fromGlobal);
            toComplete = updateAvailabilityLocked();
            return false;
        } finally {
            lock.unlock();
            complete(toComplete);
        }
    }

    /**
     * Done iff the next non-blocking request would succeed and no subpartition holds its cap, or the pool is
     * destroyed (requests then throw). A pending future completes when that changes. Do not complete it yourself.
     */
    public CompletableFuture<?> getAvailableFuture() {
        // No lock: the field is only replaced under it, and a reader that takes the lock sees no fresher state than
        // the volatile read does (the answer may change the moment the lock is released either way). Flink's task
        // asks before every record, so a lock here would cost a CAS pair per record.
        return availableFuture;
    }

    public boolean isAvailable() {
        return getAvailableFuture().isDone();
    }

    public int getNumberOfRequiredMemorySegments() {
        return numberOfRequiredSegments;
    }

    public int getMaxNumberOfMemorySegments() {
        return maxNumberOfSegments;
    }

    /** The current quota assigned by the global pool's redistribution (or by {@link #setNumBuffers}). */
    public int getNumBuffers() {
        lock.lock();
        try {
            return currentPoolSize;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sets the quota (clamped to the maximum) until the global pool redistributes again. Idle segments above it
     * go back to the global pool now, segments out in buffers when they are recycled. No effect once destroyed.
     *
     * @throws IllegalArgumentException {@code numBuffers} is below the pool's required minimum
     */
    public void setNumBuffers(int numBuffers) {
        if (numBuffers < numberOfRequiredSegments) {
            throw new IllegalArgumentException("buffer pool size " + numBuffers + " is below its required minimum "
                    + numberOfRequiredSegments + ": " + this);
        }
        List<MemorySegment> excess = new ArrayList<>();
        resize(numBuffers, excess);
        networkBufferPool.returnSegments(excess);
        onResized();
    }

    /** Segments idle in this pool right now. */
    public int getNumberOfAvailableMemorySegments() {
        lock.lock();
        try {
            return availableSegments.size();
        } finally {
            lock.unlock();
        }
    }

    /** Segments of this pool out in buffers right now; a snapshot that may be stale when read. */
    public int bestEffortGetNumOfUsedBuffers() {
        lock.lock();
        try {
            return Math.max(0, numberOfRequestedSegments - availableSegments.size());
        } finally {
            lock.unlock();
        }
    }

    public int getNumberOfSubpartitions() {
        return numberOfSubpartitions;
    }

    public int getMaxBuffersPerSubpartition() {
        return maxBuffersPerSubpartition;
    }

    /**
     * Takes back a segment of this pool: to a waiting listener, else into the pool, or to the global pool when
     * this pool is above its quota or destroyed. The caller must not touch the segment afterwards.
     */
    @Override
    public void recycle(MemorySegment segment) {
        recycle(segment, NO_SUBPARTITION);
    }

    /**
     * Destroys the pool. Idle segments go back to the global pool now, segments out in buffers when those are
     * recycled. Waiting listeners get {@link BufferListener#notifyBufferDestroyed()} once; blocked requesters wake
     * with {@link BufferPoolDestroyedException}. Unregisters from the global pool, whose other pools get the
     * share. Idempotent.
     */
    public void lazyDestroy() {
        List<MemorySegment> idle;
        List<BufferListener> waiting;
        CompletableFuture<Void> toComplete;
        lock.lock();
        try {
            if (state == PoolState.DESTROYED) {
                return;
            }
            state = PoolState.DESTROYED;
            idle = new ArrayList<>(availableSegments);
            availableSegments.clear();
            numberOfRequestedSegments -= idle.size();
            waiting = new ArrayList<>(listeners);
            listeners.clear();
            segmentAvailable.signalAll();
            toComplete = updateAvailabilityLocked();
        } finally {
            lock.unlock();
        }
        networkBufferPool.returnSegments(idle);
        networkBufferPool.unregister(this);
        complete(toComplete);
        EveryOne.apply(waiting, BufferListener::notifyBufferDestroyed);
    }

    public boolean isDestroyed() {
        return state == PoolState.DESTROYED;
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "LocalBufferPool[" + state + ", required " + numberOfRequiredSegments + ", max "
                    + (maxNumberOfSegments == Integer.MAX_VALUE ? "unbounded" : maxNumberOfSegments)
                    + ", size " + currentPoolSize + ", requested " + numberOfRequestedSegments
                    + ", idle " + availableSegments.size() + ", listeners " + listeners.size() + "]";
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- for NetworkBufferPool (package-private)

    /**
     * Sets the quota (clamped to the maximum) and moves idle segments above it into {@code excess}, which the
     * caller returns to the global pool after releasing its locks, then calls {@link #onResized()}.
     * Called with the factory lock held (lock order 1 then 2).
     */
    void resize(int numBuffers, List<MemorySegment> excess) {
        lock.lock();
        try {
            if (state == PoolState.DESTROYED) {
                return;
            }
            currentPoolSize = Math.min(numBuffers, maxNumberOfSegments);
            while (numberOfRequestedSegments > currentPoolSize && !availableSegments.isEmpty()) {
                excess.add(availableSegments.poll());
                numberOfRequestedSegments--;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * After a quota change: takes segments it may now take, updates availability, and asks the
     * {@linkplain #setOverQuotaListener over-quota listener} for buffers when more are out than the quota allows.
     * No lock may be held.
     */
    void onResized() {
        settle();
        Runnable listener = overQuotaListener;
        if (listener == null) {
            return;
        }
        boolean overQuota;
        lock.lock();
        try {
            overQuota = state == PoolState.ACTIVE && numberOfRequestedSegments - overdraftSegments > currentPoolSize;
        } finally {
            lock.unlock();
        }
        if (overQuota) {
            listener.run();
        }
    }

    // ---------------------------------------------------------------- internals

    private MemorySegment requestSegment(int subpartition) {
        return requestSegment(subpartition, false);
    }

    private MemorySegment requestSegment(int subpartition, boolean mayOverdraw) {
        MemorySegment segment;
        boolean mayChangeAvailability;
        lock.lock();
        try {
            if (state == PoolState.DESTROYED) {
                throw new BufferPoolDestroyedException("cannot request a buffer: the buffer pool is destroyed ("
                        + this + ")");
            }
            segment = availableSegments.poll();
            if (segment == null) {
                segment = takeFromGlobalLocked();
            }
            if (segment == null && mayOverdraw) {
                segment = takeOverdraftLocked();
            }
            boolean reachedCap =
                    segment != null && subpartition != NO_SUBPARTITION && countTowardCapLocked(subpartition);
            mayChangeAvailability = availableSegments.isEmpty() || reachedCap;
        } finally {
            lock.unlock();
        }
        if (mayChangeAvailability) { // the common case (more idle segments, no cap reached) skips a second lock
            settle();
        }
        return segment;
    }

    private MemorySegment requestSegmentBlocking(int subpartition) throws InterruptedException {
        while (true) {
            MemorySegment segment = requestSegment(subpartition);
            if (segment != null) {
                return segment;
            }
            lock.lockInterruptibly();
            try {
                // a segment arrives by a recycle or by the global-pool subscription; both signal
                while (state == PoolState.ACTIVE && availableSegments.isEmpty()) {
                    segmentAvailable.await();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Places a segment that came back: to the global pool (destroyed, or above the quota), to the oldest waiting
     * listener, else idle here. A listener that declines leaves the segment with the pool, which places it again:
     * a loop, so a chain of thousands of declining listeners (a large gate's channels whose backlog dropped) costs
     * no stack on the recycling thread.
     */
    private void recycle(MemorySegment segment, int subpartition) {
        int capToRelease = subpartition;
        while (true) {
            boolean toGlobal = false;
            BufferListener listener = null;
            CompletableFuture<Void> toComplete;
            lock.lock();
            try {
                if (capToRelease != NO_SUBPARTITION) {
                    releaseFromCapLocked(capToRelease);
                    capToRelease = NO_SUBPARTITION;
                }
                if (state == PoolState.DESTROYED || numberOfRequestedSegments > currentPoolSize) {
                    numberOfRequestedSegments--;
                    toGlobal = true;
                } else if (!listeners.isEmpty()) {
                    listener = listeners.poll();
                } else {
                    makeIdleLocked(segment);
                }
                // Overdraft is what the pool holds beyond its quota: a segment returned above it pays it back, and
                // so does a quota that grew meanwhile.
                overdraftSegments = Math.min(overdraftSegments,
                        Math.max(0, numberOfRequestedSegments - currentPoolSize));
                toComplete = updateAvailabilityLocked();
            } finally {
                lock.unlock();
            }
            complete(toComplete);
            if (toGlobal) {
                networkBufferPool.returnSegment(segment);
                return;
            }
            if (listener == null) {
                return;
            }
            if (offer(listener, segment)) {
                settle(); // the listener may have re-registered, or others may wait for capacity
                return;
            }
        }
    }

    /**
     * Brings the pool to a settled state after a change: serves waiting listeners, keeps one idle segment when the
     * quota allows, subscribes to the global pool while it has none to give, and completes the availability
     * future. Loops while it hands segments to listeners. No lock may be held.
     */
    private void settle() {
        while (true) {
            BufferListener listener = null;
            MemorySegment forListener = null;
            boolean subscribe = false;
            CompletableFuture<Void> toComplete;
            lock.lock();
            try {
                if (state == PoolState.ACTIVE) {
                    if (!listeners.isEmpty()) {
                        forListener = availableSegments.poll();
                        if (forListener == null) {
                            forListener = takeFromGlobalLocked();
                        }
                        if (forListener != null) {
                            listener = listeners.poll();
                        }
                    } else if (availableSegments.isEmpty()) {
                        MemorySegment fromGlobal = takeFromGlobalLocked();
                        if (fromGlobal != null) {
                            makeIdleLocked(fromGlobal);
                        }
                    }
                    if (forListener == null && availableSegments.isEmpty() && !subscribedToGlobal
                            && numberOfRequestedSegments < currentPoolSize && !networkBufferPool.isDestroyed()) {
                        subscribedToGlobal = true;
                        subscribe = true;
                    }
                }
                toComplete = updateAvailabilityLocked();
            } finally {
                lock.unlock();
            }
            complete(toComplete);
            if (subscribe && !networkBufferPool.waitForSegment(this)) {
                // A segment came back to the global pool in the meantime: settle again and take it.
                clearSubscription();
                continue;
            }
            if (listener == null) {
                return;
            }
            if (!offer(listener, forListener)) {
                takeBack(forListener); // declined: the next round offers it to the next listener
            }
        }
    }

    /**
     * The global pool's wake-up of this waiting pool (its turn in the queue of {@link NetworkBufferPool#waitForSegment}):
     * runs on the thread that returned a segment, no lock held.
     */
    void onGlobalPoolAvailable() {
        networkBufferPool.countPoolWakeUp();
        clearSubscription();
        try {
            settle();
        } catch (RuntimeException e) {
            // CompletableFuture would bury this in a future nobody reads; the failing listener already owns its
            // buffer and is unregistered, the pool itself stays consistent
            LOG.error("a buffer listener of {} failed while taking a buffer freed in the global pool", this, e);
        }
    }

    /**
     * Offers {@code segment} to {@code listener} as a buffer of this pool; re-registers it if it took the buffer and
     * asks for another, or tells it the pool is destroyed if that happened meanwhile. No lock may be held.
     *
     * @return false when the listener declined: the segment is still this pool's, to be placed by the caller
     */
    private boolean offer(BufferListener listener, MemorySegment segment) {
        // ownership of the buffer passes to the listener with this call, also if it throws, unless it declines
        BufferListener.Reply reply = listener.notifyBufferAvailable(new Buffer(segment, this));
        if (reply == BufferListener.Reply.DECLINED) {
            return false;
        }
        if (reply != BufferListener.Reply.TAKEN_WANTS_MORE) {
            return true;
        }
        boolean destroyed;
        lock.lock();
        try {
            destroyed = state == PoolState.DESTROYED;
            if (!destroyed) {
                listeners.add(listener);
            }
        } finally {
            lock.unlock();
        }
        if (destroyed) {
            listener.notifyBufferDestroyed();
        }
        return true;
    }

    /** A declined segment: idle here, or to the global pool when the pool is destroyed or above its quota. */
    private void takeBack(MemorySegment segment) {
        boolean toGlobal;
        CompletableFuture<Void> toComplete;
        lock.lock();
        try {
            toGlobal = state == PoolState.DESTROYED || numberOfRequestedSegments > currentPoolSize;
            if (toGlobal) {
                numberOfRequestedSegments--;
            } else {
                makeIdleLocked(segment);
            }
            toComplete = updateAvailabilityLocked();
        } finally {
            lock.unlock();
        }
        complete(toComplete);
        if (toGlobal) {
            networkBufferPool.returnSegment(segment);
        }
    }

    private void clearSubscription() {
        lock.lock();
        try {
            subscribedToGlobal = false;
        } finally {
            lock.unlock();
        }
    }

    /** One more segment from the global pool if the quota allows and one is free, else null. Never blocks. */
    @GuardedBy("lock")
    private MemorySegment takeFromGlobalLocked() {
        if (numberOfRequestedSegments >= currentPoolSize) {
            return null;
        }
        MemorySegment segment = networkBufferPool.pollSegment(); // segment lock: innermost, calls nothing
        if (segment != null) {
            numberOfRequestedSegments++;
        }
        return segment;
    }

    /** One segment beyond the quota from the global pool's free ones, within the overdraft allowance, else null. */
    @GuardedBy("lock")
    private MemorySegment takeOverdraftLocked() {
        if (overdraftSegments >= maxOverdraftSegments) {
            return null;
        }
        MemorySegment segment = networkBufferPool.pollSegment();
        if (segment != null) {
            numberOfRequestedSegments++;
            overdraftSegments++;
        }
        return segment;
    }

    @GuardedBy("lock")
    private void makeIdleLocked(MemorySegment segment) {
        availableSegments.add(segment);
        segmentAvailable.signal(); // one segment, one waiter
    }

    /** Counts a buffer toward its subpartition's cap; true if that subpartition just reached it. */
    @GuardedBy("lock")
    private boolean countTowardCapLocked(int subpartition) {
        if (buffersPerSubpartition == null) {
            return false;
        }
        if (++buffersPerSubpartition[subpartition] != maxBuffersPerSubpartition) {
            return false;
        }
        subpartitionsAtCap++;
        return true;
    }

    @GuardedBy("lock")
    private void releaseFromCapLocked(int subpartition) {
        if (buffersPerSubpartition[subpartition]-- == maxBuffersPerSubpartition) {
            subpartitionsAtCap--;
        }
    }

    /** Swaps the availability future to match the state; returns a future to complete after unlocking, or null. */
    @GuardedBy("lock")
    private CompletableFuture<Void> updateAvailabilityLocked() {
        boolean available = state == PoolState.DESTROYED
                || (!availableSegments.isEmpty() && subpartitionsAtCap == 0);
        if (available) {
            if (availableFuture == Availability.AVAILABLE) {
                return null;
            }
            CompletableFuture<Void> toComplete = availableFuture;
            availableFuture = Availability.AVAILABLE;
            return toComplete;
        }
        if (availableFuture == Availability.AVAILABLE) {
            availableFuture = new CompletableFuture<>();
        }
        return null;
    }

    private BufferRecycler recyclerFor(int subpartition) {
        return subpartitionRecyclers == null ? this : subpartitionRecyclers[subpartition];
    }

    private void checkSubpartition(int subpartition) {
        if (subpartitionRecyclers != null && (subpartition < 0 || subpartition >= numberOfSubpartitions)) {
            throw new IllegalArgumentException("subpartition " + subpartition + " outside [0, "
                    + numberOfSubpartitions + ") of " + this);
        }
    }

    private static void complete(CompletableFuture<Void> future) {
        if (future != null) {
            future.complete(null);
        }
    }
}
