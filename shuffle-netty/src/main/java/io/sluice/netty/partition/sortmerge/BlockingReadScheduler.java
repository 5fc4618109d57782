package io.sluice.netty.partition.sortmerge;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.compression.BufferCompressor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the blocking partitions of one environment from disk, for all their readers, with one bounded budget
 * ({@code shuffle.blocking.read-memory}): one I/O thread takes the readers that want data, sorts them by file and
 * offset so that the disk sees long sequential runs, and fills each with at most its fair share of the budget
 * (budget / registered readers). Segments are allocated off-heap as they are first needed, never more than the
 * budget, and reused; a recycled read buffer wakes the thread.
 *
 * <p>Threads: {@link #register}, {@link #unregister}, {@link #wakeUp} and the recycler from any thread; the reads
 * only on the I/O thread. {@code lock} guards the free segments, the readers and the wake-up flag. Readers are
 * called without {@code lock} held.
 */
public final class BlockingReadScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BlockingReadScheduler.class);

    private final String name;
    private final int maxSegments;
    private final int segmentSize;
    private final BufferCompressor decompressor;
    /** Compressed bytes read from disk before they are decompressed; I/O thread only. */
    private final ByteBuffer compressedScratch;
    private final BufferRecycler recycler = this::recycle;

    private final Object lock = new Object();
    @GuardedBy("lock")
    private final ArrayDeque<MemorySegment> freeSegments = new ArrayDeque<>();
    @GuardedBy("lock")
    private int allocatedSegments;
    @GuardedBy("lock")
    private final Set<SortMergeSubpartitionView> readers = new LinkedHashSet<>();
    @GuardedBy("lock")
    private boolean wakeUp;
    /** A reader stopped for lack of a free segment: the next recycled one wakes the thread. */
    @GuardedBy("lock")
    private boolean memoryWanted;
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
     */
    public BlockingReadScheduler(String name, int maxSegments, int segmentSize, BufferCompressor decompressor) {
        this.name = name;
        this.maxSegments = Math.max(1, maxSegments);
        this.segmentSize = segmentSize;
        this.decompressor = decompressor;
        this.compressedScratch = ByteBuffer.allocateDirect(decompressor.maxCompressedLength(segmentSize));
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

    /** The budget in segments. */
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

    /** Adds a reader and wakes the thread to fill it. */
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

    /** A read buffer of the budget, or null when the budget is used up. I/O thread. */
    Buffer requestBuffer() {
        MemorySegment segment;
        synchronized (lock) {
            segment = freeSegments.poll();
            if (segment == null) {
                if (allocatedSegments >= maxSegments) {
                    // The next recycled segment wakes the thread again.
                    memoryWanted = true;
                    return null;
                }
                allocatedSegments++;
            }
        }
        if (segment == null) {
            segment = MemorySegment.allocateOffHeap(segmentSize);
        }
        return new Buffer(segment, recycler);
    }

    /**
     * Whether the I/O thread waits with no wake-up pending: it has done what every wake-up so far asked. For tests
     * that take the thread's timing out of what they count.
     */
    boolean isIdle() {
        synchronized (lock) {
            return threadWaiting && !wakeUp;
        }
    }

    private void recycle(MemorySegment segment) {
        synchronized (lock) {
            if (closed) {
                allocatedSegments--;
                segment.free();
                return;
            }
            freeSegments.add(segment);
            if (memoryWanted) {
                // Only a reader that found the budget used up waits for this; otherwise the consumer's own wake-up
                // (when its queue runs low) is enough, and the thread is not woken once per recycled buffer.
                memoryWanted = false;
                wakeUpLocked();
            }
        }
    }

    private void run() {
        List<SortMergeSubpartitionView> round = new ArrayList<>();
        Comparator<SortMergeSubpartitionView> byFileAndOffset = Comparator
                .comparingInt(SortMergeSubpartitionView::fileOrder)
                .thenComparingLong(SortMergeSubpartitionView::nextReadPosition);
        int registered;
        while (true) {
            synchronized (lock) {
                while (!wakeUp && !closed) {
                    threadWaiting = true;
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        if (closed) {
                            return;
                        }
                    } finally {
                        threadWaiting = false;
                    }
                }
                if (closed) {
                    return;
                }
                wakeUp = false;
                // Shared by every registered reader, not only those wanting data now: a reader whose consumer is
                // slow cannot sit on the whole budget while others wait.
                registered = readers.size();
                round.clear();
                for (SortMergeSubpartitionView reader : readers) {
                    if (reader.wantsData()) {
                        round.add(reader);
                    }
                }
            }
            if (round.isEmpty()) {
                continue;
            }
            round.sort(byFileAndOffset);
            int fairShare = Math.max(1, maxSegments / Math.max(1, registered));
            for (SortMergeSubpartitionView reader : round) {
                try {
                    reader.readSome(this, fairShare);
                } catch (RuntimeException e) {
                    LOG.error("Reading {} failed unexpectedly", reader, e);
                    reader.fail(e);
                }
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
