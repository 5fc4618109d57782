package io.sluice.netty.partition.sortmerge;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.DirectMemoryLimit;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.compression.BufferCompressor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Reads the blocking partitions of one environment from disk, for all their readers, with one bounded budget
 * ({@code shuffle.blocking.read-memory}): one I/O thread takes the readers that want data, sorts them by file and
 * offset so that the disk sees long sequential runs, and fills each with at most its fair share of the budget
 * (budget / readers that read or hold read segments). Segments are allocated off-heap as they are first needed,
 * never more than the budget, and reused; a recycled read buffer wakes the thread when a reader waits for it.
 *
 * <p>Fair share, also for readers whose consumers stop reading: a reader counts every segment it holds (queued, or
 * taken by its consumer and not yet recycled) against its own share. A reader that finds the budget used up while
 * it holds less than its share takes back the read-ahead other readers hold beyond theirs (their consumers have not
 * taken it; they read it again later). With more readers than segments (a share of less than one), a reader that
 * holds nothing takes back the read-ahead that has waited longest untaken, once it has waited {@value #STALE_MILLIS}
 * ms; the reader it came from then waits until its consumer gets to that place before it reads again. A reader that
 * holds nothing while every segment is with a consumer (none can be taken back: those consumers stopped reading)
 * waits at most the read-memory timeout ({@code shuffle.blocking.read-memory-timeout}), then fails with a
 * {@link ShuffleException} naming the read memory, so that no consumer waits for ever on another that never reads.
 *
 * <p>Failures: anything a read throws, an Error included, fails that reader with a {@link ShuffleException} naming
 * the partition, the subpartition and the cause, and the thread goes on serving the others. Should the thread itself
 * end by an Error outside a read, every reader it had is failed the same way and the next registered reader starts a
 * new thread. Direct memory that runs out while segments are allocated shrinks the budget to the segments it has (a
 * warning names both limits); when not even one segment can be allocated the reader fails, naming them.
 *
 * <p>Threads: {@link #register}, {@link #unregister}, {@link #wakeUp} and the recyclers from any thread; the reads
 * only on the I/O thread. {@code lock} guards the free segments, the budget, the readers and the wake-up state.
 * Readers are called without {@code lock} held.
 */
public final class BlockingReadScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BlockingReadScheduler.class);

    /**
     * How long read-ahead waits untaken before a reader that holds nothing may take it back when readers outnumber
     * segments: long enough that a consumer that reads is not robbed of what it is about to take, short against
     * one that stopped.
     */
    static final long STALE_MILLIS = 100;
    private static final long STALE_NANOS = TimeUnit.MILLISECONDS.toNanos(STALE_MILLIS);

    private final String name;
    private final int maxSegments;
    private final int segmentSize;
    private final BufferCompressor decompressor;
    /** Compressed bytes read from disk before they are decompressed; I/O thread only. */
    private final ByteBuffer compressedScratch;
    private final IntFunction<MemorySegment> allocator;
    private final long readTimeoutNanos;
    /** Readers that hold nothing and found every segment with a consumer, since when; I/O thread only. */
    private final Map<SortMergeSubpartitionView, Long> starvedSince = new IdentityHashMap<>();

    private final Object lock = new Object();
    @GuardedBy("lock")
    private final ArrayDeque<MemorySegment> freeSegments = new ArrayDeque<>();
    @GuardedBy("lock")
    private int allocatedSegments;
    /** The budget in segments: {@link #maxSegments}, or what was allocated when direct memory ran out. */
    @GuardedBy("lock")
    private int budgetSegments;
    @GuardedBy("lock")
    private final Set<SortMergeSubpartitionView> readers = new LinkedHashSet<>();
    @GuardedBy("lock")
    private boolean wakeUp;
    /** A reader stopped for lack of a free segment: the next recycled one wakes the thread. */
    @GuardedBy("lock")
    private boolean memoryWanted;
    /** Whether the thread wakes by itself at {@link #wakeAtNanos}: read-ahead becomes stale for a reader in need. */
    @GuardedBy("lock")
    private boolean timedWakeUp;
    @GuardedBy("lock")
    private long wakeAtNanos;
    /**
     * While a round runs: whether, and when, the thread should look again by itself (read-ahead a starved reader
     * could take back becomes stale, or a starved reader's wait runs out). I/O thread.
     */
    private boolean checkPlanned;
    private long checkAtNanos;
    /** The I/O thread waits for a wake-up (nothing pending); for {@link #isIdle()}. */
    @GuardedBy("lock")
    private boolean threadWaiting;
    @GuardedBy("lock")
    private boolean closed;
    @GuardedBy("lock")
    private Thread ioThread;

    /**
     * @param name        the environment, for the thread name and messages
     * @param maxSegments the read budget in segments, at least one
     * @param decompressor lz4 for compressed stored buffers (always able to read them, whatever this environment's
     *                     codec)
     * @param readTimeout  how long a reader waits for a segment while every segment is with a consumer
     */
    public BlockingReadScheduler(String name, int maxSegments, int segmentSize, BufferCompressor decompressor,
                                 Duration readTimeout) {
        this(name, maxSegments, segmentSize, decompressor, readTimeout, MemorySegment::allocateOffHeap);
    }

    /** With the default read-memory timeout. */
    public BlockingReadScheduler(String name, int maxSegments, int segmentSize, BufferCompressor decompressor) {
        this(name, maxSegments, segmentSize, decompressor,
                ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT.defaultValue());
    }

    /** @param allocator allocates a read segment of the given size (tests inject failures here) */
    BlockingReadScheduler(String name, int maxSegments, int segmentSize, BufferCompressor decompressor,
                          IntFunction<MemorySegment> allocator) {
        this(name, maxSegments, segmentSize, decompressor,
                ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT.defaultValue(), allocator);
    }

    BlockingReadScheduler(String name, int maxSegments, int segmentSize, BufferCompressor decompressor,
                          Duration readTimeout, IntFunction<MemorySegment> allocator) {
        this.allocator = allocator;
        this.readTimeoutNanos = readTimeout.toNanos();
        this.name = name;
        this.maxSegments = Math.max(1, maxSegments);
        this.segmentSize = segmentSize;
        this.decompressor = decompressor;
        this.compressedScratch = ByteBuffer.allocateDirect(decompressor.maxCompressedLength(segmentSize));
        synchronized (lock) {
            this.budgetSegments = this.maxSegments;
        }
    }

    int segmentSize() {
        return segmentSize;
    }

    BufferCompressor decompressor() {
        return decompressor;
    }

    ByteBuffer compressedScratch() {
        return compressedScratch;
    }

    /** The budget in segments, as configured. */
    public int maxSegments() {
        return maxSegments;
    }

    /** Segments allocated so far (never more than the budget). */
    public int allocatedSegments() {
        synchronized (lock) {
            return allocatedSegments;
        }
    }

    /** Segments of the budget held by readers or consumers now. */
    public int segmentsInUse() {
        synchronized (lock) {
            return allocatedSegments - freeSegments.size();
        }
    }

    /** Adds a reader and wakes the thread to fill it; starts the thread when there is none (or it failed). */
    void register(SortMergeSubpartitionView reader) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the blocking partition reader of " + name + " is closed");
            }
            readers.add(reader);
            if (ioThread == null) {
                ioThread = new Thread(this::run, "sluice-blocking-io-" + name);
                ioThread.setDaemon(true);
                ioThread.start();
            }
            wakeUpLocked();
        }
    }

    /** Removes a reader that was released or failed; it counts for the shares no more. */
    void unregister(SortMergeSubpartitionView reader) {
        synchronized (lock) {
            readers.remove(reader);
        }
    }

    /** Some reader may want data (a consumer took a buffer, or memory came back). Any thread; never blocks. */
    void wakeUp() {
        synchronized (lock) {
            wakeUpLocked();
        }
    }

    @GuardedBy("lock")
    private void wakeUpLocked() {
        wakeUp = true;
        lock.notifyAll();
    }

    /**
     * A read buffer of the budget for {@code owner}, counted against its share, or null when the budget is used up.
     * I/O thread.
     *
     * @throws OutOfMemoryError when the JVM has no direct memory for even the first segment
     */
    Buffer requestBuffer(SortMergeSubpartitionView owner) {
        MemorySegment segment;
        synchronized (lock) {
            segment = freeSegments.poll();
            if (segment == null) {
                if (allocatedSegments >= budgetSegments) {
                    // The next recycled segment wakes the thread again.
                    memoryWanted = true;
                    return null;
                }
                allocatedSegments++;
            }
        }
        if (segment == null) {
            try {
                segment = allocator.apply(segmentSize);
            } catch (OutOfMemoryError e) {
                shrinkBudget(e);
                return null;
            } catch (Throwable e) {
                synchronized (lock) {
                    allocatedSegments--;
                }
                throw e;
            }
        }
        return new Buffer(segment, owner.takeReadSegment());
    }

    /**
     * Direct memory ran out while a segment was allocated: the budget becomes the segments allocated so far, which
     * come back as their readers recycle them. With none allocated there is nothing to wait for: {@code e} is thrown
     * on, to fail the reader.
     */
    private void shrinkBudget(OutOfMemoryError e) {
        int kept;
        synchronized (lock) {
            allocatedSegments--;
            kept = allocatedSegments;
            if (kept > 0) {
                budgetSegments = kept;
                memoryWanted = true;
            }
        }
        if (kept == 0) {
            throw e;
        }
        LOG.warn("The JVM's direct memory ran out after {} of the {} read segments of {}: reading blocking "
                + "partitions goes on with {} segments ({}). {}", kept, maxSegments, name, kept, e.getMessage(),
                describeLimits());
    }

    /** The read memory and the JVM's direct memory limit, and what to change. */
    private String describeLimits() {
        long limit = DirectMemoryLimit.maxBytes();
        return ShuffleOptions.BLOCKING_READ_MEMORY.key() + " is " + describeBudget() + "; the JVM's direct memory "
                + "limit is " + (limit >= 0 ? limit + " bytes" : "unknown") + " (-XX:MaxDirectMemorySize, by default the "
                + "maximum heap size), shared with the network memory and anything else off-heap: lower "
                + ShuffleOptions.BLOCKING_READ_MEMORY.key() + " or raise -XX:MaxDirectMemorySize";
    }

    /** The configured read memory in segments and bytes. */
    private String describeBudget() {
        return maxSegments + " segments of " + segmentSize + " bytes (" + (long) maxSegments * segmentSize
                + " bytes)";
    }

    /**
     * Whether the I/O thread waits with no wake-up pending and none planned: it has done what every wake-up so far
     * asked. For tests that take the thread's timing out of what they count.
     */
    boolean isIdle() {
        synchronized (lock) {
            return threadWaiting && !wakeUp && !timedWakeUp;
        }
    }

    /** A read segment of {@code owner} comes back; {@code held} is what the owner holds now. Any thread. */
    void recycle(MemorySegment segment, SortMergeSubpartitionView owner, int held) {
        synchronized (lock) {
            if (closed) {
                allocatedSegments--;
                segment.free();
                return;
            }
            freeSegments.add(segment);
            if (memoryWanted) {
                // Only a reader that found the budget used up waits for this, or one that stopped at its share;
                // otherwise the consumer's own wake-up (when its queue runs low) is enough, and the thread is not
                // woken once per recycled buffer.
                memoryWanted = false;
                wakeUpLocked();
            } else if (owner.wakeOnRecycle(held)) {
                wakeUpLocked();
            }
        }
    }

    /** The I/O thread: serves rounds until closed; fails its readers if it ends by an Error. */
    private void run() {
        Throwable death = null;
        try {
            serve();
        } catch (Throwable t) {
            death = t;
        } finally {
            ended(death);
        }
    }

    private void serve() {
        List<SortMergeSubpartitionView> all = new ArrayList<>();
        List<SortMergeSubpartitionView> round = new ArrayList<>();
        Comparator<SortMergeSubpartitionView> byFileAndOffset = Comparator
                .comparingInt(SortMergeSubpartitionView::fileOrder)
                .thenComparingLong(SortMergeSubpartitionView::nextReadPosition);
        int budget;
        while (true) {
            synchronized (lock) {
                if (!awaitWakeUpLocked()) {
                    return;
                }
                wakeUp = false;
                budget = budgetSegments;
                all.clear();
                all.addAll(readers);
            }
            // Shared by every reader that reads or holds segments, not only those wanting data now: a reader whose
            // consumer is slow or stopped cannot sit on the whole budget while others wait.
            int active = 0;
            round.clear();
            for (SortMergeSubpartitionView reader : all) {
                if (reader.wantsData()) {
                    round.add(reader);
                    active++;
                } else if (reader.heldSegments() > 0) {
                    active++;
                }
            }
            checkPlanned = false;
            starvedSince.keySet().retainAll(all);
            if (!round.isEmpty()) {
                round.sort(byFileAndOffset);
                int share = Math.max(1, budget / Math.max(1, active));
                for (SortMergeSubpartitionView reader : round) {
                    serveOne(reader, share, all);
                }
            }
            synchronized (lock) {
                timedWakeUp = checkPlanned;
                wakeAtNanos = checkAtNanos;
            }
        }
    }

    /**
     * Waits for a wake-up, or until {@link #wakeAtNanos} when a timed one is planned. Under {@code lock}, on the I/O
     * thread.
     *
     * @return false when closed
     */
    @GuardedBy("lock")
    private boolean awaitWakeUpLocked() {
        while (!wakeUp && !closed) {
            threadWaiting = true;
            try {
                if (!timedWakeUp) {
                    lock.wait();
                } else {
                    long left = wakeAtNanos - System.nanoTime();
                    if (left <= 0) {
                        timedWakeUp = false;
                        wakeUp = true;
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    }
                }
            } catch (InterruptedException e) {
                // Only close() ends the thread; an interrupt without it is ignored.
            } finally {
                threadWaiting = false;
            }
        }
        return !closed;
    }

    /**
     * Reads for {@code reader} within {@code share}; takes read-ahead back from others when the budget is used up.
     * Anything thrown fails the reader alone.
     */
    private void serveOne(SortMergeSubpartitionView reader, int share, List<SortMergeSubpartitionView> all) {
        try {
            boolean wanting = reader.readSome(this, share);
            if (wanting && takeBackFor(reader, share, all)) {
                wanting = reader.readSome(this, share);
            }
            if (wanting && reader.heldSegments() == 0) {
                starved(reader, all.size());
            } else {
                starvedSince.remove(reader);
            }
        } catch (Throwable t) {
            fail(reader, t);
        }
    }

    /**
     * {@code reader} wants data, holds no segment and found none free or to take back: it waits at most the
     * read-memory timeout from the first time, then fails naming the read memory.
     */
    private void starved(SortMergeSubpartitionView reader, int readers) {
        long now = System.nanoTime();
        Long since = starvedSince.putIfAbsent(reader, now);
        long start = since == null ? now : since;
        long waited = now - start;
        if (waited < readTimeoutNanos) {
            planCheck(start + readTimeoutNanos);
            return;
        }
        starvedSince.remove(reader);
        int inUse = segmentsInUse();
        reader.fail(new ShuffleException(reader + " waited " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms for a "
                + "segment of the read memory of " + name + ", and every one of its " + inUse + " segments in use is "
                + "held by the consumer of another of the " + readers + " readers, which has not recycled it: "
                + "raise " + ShuffleOptions.BLOCKING_READ_MEMORY.key() + ", " + describeBudget() + ", to at least "
                + "a segment per concurrent reader, or " + ShuffleOptions.BLOCKING_READ_MEMORY_TIMEOUT.key()
                + " (" + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms) when consumers pause for long"));
    }

    /** The thread looks again by itself at {@code atNanos}, or earlier when something else asks for it. */
    private void planCheck(long atNanos) {
        if (!checkPlanned || atNanos - checkAtNanos < 0) {
            checkPlanned = true;
            checkAtNanos = atNanos;
        }
    }

    /**
     * The budget is used up and {@code reader} holds less than its share: takes back read-ahead no consumer has
     * taken, first what other readers hold beyond their share; then, when the reader holds nothing (more readers
     * than segments), the read-ahead that has waited untaken longest, once it is stale (until then a timed wake-up
     * is planned).
     *
     * @return whether segments came back
     */
    private boolean takeBackFor(SortMergeSubpartitionView reader, int share, List<SortMergeSubpartitionView> all) {
        int wanted = share - reader.heldSegments();
        int back = 0;
        for (int i = 0; i < all.size() && back < wanted; i++) {
            SortMergeSubpartitionView other = all.get(i);
            int beyondShare = other.heldSegments() - share;
            if (other != reader && beyondShare > 0 && other.queuedReadBuffers() > 0) {
                back += other.giveBack(Math.min(beyondShare, wanted - back), false);
            }
        }
        if (back > 0 || reader.heldSegments() > 0) {
            // A reader that holds segments goes on as its consumer recycles them.
            return back > 0;
        }
        SortMergeSubpartitionView stalest = null;
        for (SortMergeSubpartitionView other : all) {
            if (other != reader && other.queuedReadBuffers() > 0 && (stalest == null
                    || other.lastActivityNanos() - stalest.lastActivityNanos() < 0)) {
                stalest = other;
            }
        }
        if (stalest == null) {
            // Every segment is with a consumer: the next one recycled wakes the thread.
            return false;
        }
        long staleAt = stalest.lastActivityNanos() + STALE_NANOS;
        if (System.nanoTime() - staleAt < 0) {
            planCheck(staleAt);
            return false;
        }
        return stalest.giveBack(Integer.MAX_VALUE, true) > 0;
    }

    /** Fails {@code reader} with what its read threw on this thread. */
    private void fail(SortMergeSubpartitionView reader, Throwable cause) {
        LOG.error("Reading {} on {} failed", reader, Thread.currentThread().getName(), cause);
        String message = "reading " + reader + " on the blocking I/O thread " + Thread.currentThread().getName()
                + " failed: " + cause;
        if (cause instanceof OutOfMemoryError) {
            message += "; " + describeLimits();
        }
        reader.fail(new ShuffleException(message, cause));
    }

    /**
     * The I/O thread ends: closed, or {@code death} escaped a round. Then every reader it had fails with it, and the
     * next {@link #register} starts a new thread, so no reader waits for a thread that is gone.
     */
    private void ended(Throwable death) {
        List<SortMergeSubpartitionView> orphans;
        synchronized (lock) {
            ioThread = null;
            threadWaiting = false;
            if (death == null) {
                return;
            }
            orphans = new ArrayList<>(readers);
        }
        String thread = Thread.currentThread().getName();
        LOG.error("The blocking I/O thread {} failed; failing its {} readers", thread, orphans.size(), death);
        for (SortMergeSubpartitionView reader : orphans) {
            try {
                reader.fail(new ShuffleException("the blocking I/O thread " + thread + " failed while " + reader
                        + " waited for data: " + death, death));
            } catch (Throwable t) {
                LOG.error("Failing {} failed too", reader, t);
            }
        }
    }

    /** Stops the thread and frees the free segments; segments still held are freed as they come back. */
    @Override
    public void close() {
        Thread thread;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
            thread = ioThread;
            for (MemorySegment segment : freeSegments) {
                segment.free();
                allocatedSegments--;
            }
            freeSegments.clear();
        }
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "blocking partition reader of " + name + " (" + maxSegments + " segments)";
    }
}
