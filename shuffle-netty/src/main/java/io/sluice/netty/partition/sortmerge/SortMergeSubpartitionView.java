package io.sluice.netty.partition.sortmerge;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.netty.partition.SharedFileChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One reader of one subpartition of a finished {@link SortMergeResultPartition}: the environment's
 * {@link BlockingReadScheduler} reads the subpartition's spans region by region into buffers of the read budget and
 * queues them here; the consumer (a local channel's thread, or a connection's event loop) takes them with
 * {@link #getNextBuffer()}. After the last region comes the end-of-partition event. Every reader has its own file
 * handles and position, so any number may read the same partition, one after another or at once.
 *
 * <p>Threads: the file handles, region and position belong to the scheduler's I/O thread; the queue and the state
 * are guarded by {@code lock}; the consumer's methods take {@code lock} briefly. The listener is told of data with
 * no lock held, once per empty-to-readable transition. Lock order: the scheduler's lock, then this lock.
 *
 * <p>A reader that can send file bytes to its socket (a TCP connection without compression) enables file spans: the
 * I/O thread then queues the position and length of each uncompressed data buffer instead of reading it, and the
 * sender ships those bytes from the file (sendfile); events and compressed buffers are still read.
 *
 * <p>Ownership: queued buffers belong to this view until {@link #getNextBuffer()} hands one over (the taker recycles
 * it, which returns its segment to the read budget); buffers still queued at release are recycled here.
 */
final class SortMergeSubpartitionView implements ResultSubpartitionView {

    /** Life cycle of the view. */
    private enum State {
        READING,
        /** The consumer let go, or the partition was released (then {@code failureCause} is set). Terminal. */
        RELEASED
    }

    private final SortMergeResultPartition partition;
    private final int subpartition;
    private final BufferAvailabilityListener listener;
    private final BlockingReadScheduler scheduler;

    /** This reader's one open handle of the data file, shared with the file spans it hands out. */
    private final SharedFileChannel dataFile;
    // I/O thread only.
    private final FileChannel data;
    private final FileChannel index;
    private final ByteBuffer header = ByteBuffer.allocateDirect(PartitionFiles.BUFFER_HEADER_BYTES);
    private final ByteBuffer indexEntry = ByteBuffer.allocate(PartitionFiles.INDEX_ENTRY_BYTES);
    private int nextRegion;
    private long position;
    private long remainingInRegion;
    /** Whether {@code header} already holds the next buffer's header (read together with the previous payload). */
    private boolean headerPrefetched;
    /** Where the data channel's own position is (-1: unknown); only the scatter reads below move it. */
    private long channelPosition = -1;
    /** Header and payload target of one scatter read. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    private boolean sized;
    /** Bytes of this subpartition still on disk, unread; -1 until the I/O thread has summed the index. */
    private volatile long unreadBytes = -1;

    private final Object lock = new Object();
    /** {@link Buffer}s and {@link Span}s, in stream order. */
    @GuardedBy("lock")
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    @GuardedBy("lock")
    private State state = State.READING;
    @GuardedBy("lock")
    private Throwable failureCause;
    /** Whether the consumer let go and the file handles were given up (once, also after a failure). */
    @GuardedBy("lock")
    private boolean handlesClosed;
    /** Data buffers in the queue; read without the lock by the scheduler as an estimate. */
    private volatile int queuedDataBuffers; // written under lock
    /** The end-of-partition event was queued: nothing more to read. */
    private volatile boolean endQueued; // written by the I/O thread
    private volatile boolean released; // mirrors state == RELEASED for lock-free checks
    /** Consumer thread only. */
    private int sequenceNumber;
    /** The share of the read budget the scheduler last gave this view; written by the I/O thread. */
    private volatile int lastShare = 1;
    /** Whether uncompressed data is queued as file spans rather than read. */
    private volatile boolean fileSpans;

    /** A data buffer left in the file. */
    private record Span(long position, int length) {
    }

    /**
     * Opens the partition's files for this reader.
     *
     * @throws PartitionNotFoundException when the files are gone
     * @throws ShuffleException when they cannot be opened
     */
    SortMergeSubpartitionView(SortMergeResultPartition partition, int subpartition,
                              BufferAvailabilityListener listener, BlockingReadScheduler scheduler)
            throws ShuffleException {
        this.partition = partition;
        this.subpartition = subpartition;
        this.listener = listener;
        this.scheduler = scheduler;
        FileChannel openedData = null;
        try {
            openedData = FileChannel.open(partition.dataPath(), StandardOpenOption.READ);
            this.index = FileChannel.open(partition.indexPath(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            closeQuietly(openedData);
            PartitionNotFoundException notFound = new PartitionNotFoundException(partition.partitionId());
            notFound.addSuppressed(e);
            throw notFound;
        } catch (IOException e) {
            closeQuietly(openedData);
            throw new ShuffleException("cannot open the files of blocking partition " + partition.partitionId()
                    + " in " + partition.dataPath().getParent() + ": " + e, e);
        }
        this.data = openedData;
        this.dataFile = new SharedFileChannel(partition.dataPath(), openedData);
        // Known before the first read, so a zero-copy reader never reads data into memory.
        this.fileSpans = listener.acceptsFileSpans();
    }

    /** Starts reading: registers with the scheduler. */
    void start() {
        scheduler.register(this);
    }

    // --------------------------------------------------------------------------------------------------------
    // Scheduler (I/O thread)
    // --------------------------------------------------------------------------------------------------------

    /** Orders readers of different partitions apart; the scheduler sorts by it, then by position. */
    int fileOrder() {
        return partition.fileOrder();
    }

    long nextReadPosition() {
        return position;
    }

    /** Whether the scheduler should read for this view: still reading, not at the end. Lock-free estimate. */
    boolean wantsData() {
        return !released && !endQueued;
    }

    /**
     * Reads buffers until this view holds {@code share} data buffers, the read budget is used up, or the
     * subpartition ends.
     */
    void readSome(BlockingReadScheduler budget, int share) {
        try {
            if (!sized) {
                sumIndex();
            }
            lastShare = share;
            while (!released && !endQueued && queuedDataBuffers < share) {
                if (remainingInRegion == 0) {
                    if (nextRegion == partition.regions()) {
                        endQueued = true;
                        // Nothing more to read: leave the budget's share to the others.
                        budget.unregister(this);
                        enqueue(EventSerializer.endOfPartition());
                        return;
                    }
                    readIndexEntry(nextRegion++);
                    continue;
                }
                if (headerPrefetched) {
                    // Read with the previous buffer's bytes.
                    headerPrefetched = false;
                } else {
                    readFully(data, header.clear(), position);
                    header.flip();
                }
                int length = header.getInt();
                byte kind = header.get();
                boolean compressed = (header.get() & PartitionFiles.FLAG_COMPRESSED) != 0;
                long payloadPosition = position + PartitionFiles.BUFFER_HEADER_BYTES;
                if (length < 0 || PartitionFiles.BUFFER_HEADER_BYTES + (long) length > remainingInRegion) {
                    throw new IOException("corrupt buffer header at offset " + position + ": length " + length
                            + ", " + remainingInRegion + " bytes left in the region");
                }
                Object entry;
                if (kind == PartitionFiles.KIND_EVENT) {
                    byte[] bytes = new byte[length];
                    readFully(data, ByteBuffer.wrap(bytes), payloadPosition);
                    entry = new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, length);
                } else if (fileSpans && !compressed) {
                    entry = new Span(payloadPosition, length);
                } else {
                    Buffer buffer = budget.requestBuffer();
                    if (buffer == null) {
                        // The budget is used up: a recycled buffer wakes the scheduler again.
                        return;
                    }
                    try {
                        buffer.setSize(readData(budget, buffer, payloadPosition, length, compressed));
                    } catch (IOException | RuntimeException e) {
                        buffer.recycleBuffer();
                        throw e;
                    }
                    entry = buffer;
                }
                position = payloadPosition + length;
                remainingInRegion -= PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
                unreadBytes -= PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
                enqueue(entry);
            }
        } catch (ClosedChannelException e) {
            if (!released) {
                fail(new ShuffleException("the files of blocking partition " + partition.partitionId()
                        + " were closed while subpartition " + subpartition + " was read", e));
            }
        } catch (IOException e) {
            if (!released) {
                fail(new ShuffleException("cannot read subpartition " + subpartition + " of blocking partition "
                        + partition.partitionId() + " from " + partition.dataPath() + ": " + e.getMessage(), e));
            }
        }
    }

    private int readData(BlockingReadScheduler budget, Buffer buffer, long at, int length, boolean compressed)
            throws IOException {
        int capacity = buffer.getMaxCapacity();
        ByteBuffer target = buffer.getMemorySegment().wrap(0, capacity);
        if (!compressed) {
            if (length > capacity) {
                throw new IOException("stored buffer of " + length + " bytes at offset " + at
                        + " exceeds the segment size " + capacity + "; was it written with another segment size?");
            }
            target.limit(length);
            if (remainingInRegion > 2L * PartitionFiles.BUFFER_HEADER_BYTES + length) {
                // Another buffer follows in this span: read its header with these bytes, one system call for both.
                readWithNextHeader(target, at);
            } else {
                readFully(data, target, at);
            }
            return length;
        }
        ByteBuffer scratch = budget.compressedScratch();
        if (length > scratch.capacity()) {
            throw new IOException("compressed buffer of " + length + " bytes at offset " + at + " is too large");
        }
        scratch.clear().limit(length);
        readFully(data, scratch, at);
        return budget.decompressor().decompress(scratch, 0, length, target, 0, capacity,
                "buffer at offset " + at + " of " + partition.dataPath());
    }

    /** Reads {@code target} from {@code at} and the 8 header bytes right after it into {@code header}. */
    private void readWithNextHeader(ByteBuffer target, long at) throws IOException {
        if (channelPosition != at) {
            data.position(at);
        }
        header.clear();
        scatter[0] = target;
        scatter[1] = header;
        long expected = target.remaining() + (long) PartitionFiles.BUFFER_HEADER_BYTES;
        long read = 0;
        while (read < expected) {
            long n = data.read(scatter);
            if (n < 0) {
                channelPosition = -1;
                throw new IOException("unexpected end of file at offset " + (at + read));
            }
            read += n;
        }
        channelPosition = at + expected;
        header.flip();
        headerPrefetched = true;
    }

    /** Sums this subpartition's spans, for the backlog the consumer is told (so it can lend floating buffers). */
    private void sumIndex() throws IOException {
        long total = 0;
        for (int region = 0; region < partition.regions(); region++) {
            readIndexEntry(region);
            total += remainingInRegion;
        }
        remainingInRegion = 0;
        position = 0;
        unreadBytes = total;
        sized = true;
    }

    private void readIndexEntry(int region) throws IOException {
        indexEntry.clear();
        readFully(index, indexEntry, PartitionFiles.indexEntryPosition(region, partition.numberOfSubpartitions(),
                subpartition));
        indexEntry.flip();
        position = indexEntry.getLong();
        remainingInRegion = indexEntry.getLong();
    }

    private static void readFully(FileChannel channel, ByteBuffer target, long at) throws IOException {
        long p = at;
        while (target.hasRemaining()) {
            int n = channel.read(target, p);
            if (n < 0) {
                throw new IOException("unexpected end of file at offset " + p);
            }
            p += n;
        }
    }

    /** Queues a Buffer or a Span; a buffer that arrives after the release is recycled. */
    private void enqueue(Object entry) {
        boolean notify;
        synchronized (lock) {
            if (state == State.RELEASED) {
                notify = false;
            } else {
                notify = queue.isEmpty();
                queue.add(entry);
                if (isData(entry)) {
                    queuedDataBuffers++;
                }
                entry = null;
            }
        }
        if (entry instanceof Buffer dropped) {
            dropped.recycleBuffer();
            return;
        }
        if (entry != null) {
            return;
        }
        if (notify) {
            listener.notifyDataAvailable();
        }
    }

    /** Ends the read with {@code cause}: queued buffers go back, the consumer is told. Any thread. */
    void fail(Throwable cause) {
        List<Buffer> dropped;
        synchronized (lock) {
            if (state == State.RELEASED) {
                return;
            }
            state = State.RELEASED;
            released = true;
            failureCause = cause;
            dropped = drainLocked();
        }
        scheduler.unregister(this);
        recycleAll(dropped);
        listener.notifyDataAvailable();
    }

    // --------------------------------------------------------------------------------------------------------
    // Consumer
    // --------------------------------------------------------------------------------------------------------

    @Override
    public BufferAndBacklog getNextBuffer() {
        Buffer buffer;
        boolean more;
        boolean nextIsEvent;
        int backlog;
        synchronized (lock) {
            if (state == State.RELEASED) {
                return null;
            }
            if (!(queue.peek() instanceof Buffer head)) {
                // Empty, or a file span next: the sender takes that with pollFileSpan(int).
                return null;
            }
            buffer = head;
            queue.poll();
            if (buffer.isBuffer()) {
                queuedDataBuffers--;
            }
            Object next = queue.peek();
            more = next != null;
            nextIsEvent = isEvent(next);
            backlog = estimatedBacklog();
        }
        wakeSchedulerIfLow();
        return new BufferAndBacklog(buffer, more, backlog, nextIsEvent, false, sequenceNumber++);
    }

    /**
     * Asks the I/O thread for more once this view's queue has fallen to half its share, not after every buffer: the
     * thread then refills it in one batch of sequential reads, and wakes up once per batch instead of per buffer.
     */
    private void wakeSchedulerIfLow() {
        if (!endQueued && queuedDataBuffers <= lastShare / 2) {
            scheduler.wakeUp();
        }
    }

    @Override
    public FileSpan pollFileSpan(int maxBuffers) {
        FileSpan span;
        synchronized (lock) {
            if (state == State.RELEASED || !(queue.peek() instanceof Span first)) {
                return null;
            }
            queue.poll();
            int buffers = 1;
            long dataBytes = first.length();
            long end = first.position() + first.length();
            // Take the spans that follow back to back in the file (the same region): one sendfile for all of them.
            while (buffers < maxBuffers && queue.peek() instanceof Span next
                    && next.position() == end + PartitionFiles.BUFFER_HEADER_BYTES) {
                queue.poll();
                buffers++;
                dataBytes += next.length();
                end = next.position() + next.length();
            }
            queuedDataBuffers -= buffers;
            Object after = queue.peek();
            long start = first.position() - PartitionFiles.BUFFER_HEADER_BYTES;
            // The span's own reference: the view may be released while the sender still writes it.
            span = new FileSpan(dataFile.retain(), start, end - start, buffers, dataBytes, after != null,
                    estimatedBacklog(), isEvent(after), sequenceNumber);
            sequenceNumber += buffers;
        }
        wakeSchedulerIfLow();
        return span;
    }

    /**
     * Nothing to resume: a blocking partition's events, {@code broadcastBlockingEvent}'s included, are stored as
     * ordinary events and never hold its reader back, so a consumer's resume is accepted and does nothing.
     */
    @Override
    public void resumeConsumption() {
    }

    @Override
    public void enableFileSpans() {
        fileSpans = true;
    }

    @Override
    public boolean isAvailable(int credits) {
        synchronized (lock) {
            Object head = queue.peek();
            return state == State.READING && head != null && (credits > 0 || isEvent(head));
        }
    }

    private static boolean isEvent(Object entry) {
        return entry instanceof Buffer buffer && !buffer.isBuffer();
    }

    private static boolean isData(Object entry) {
        return entry instanceof Span || (entry instanceof Buffer buffer && buffer.isBuffer());
    }

    @Override
    public int getBacklog() {
        return estimatedBacklog();
    }

    /**
     * Data buffers queued plus an estimate of those still on disk: what the consumer should make room for. Reads
     * volatile counters only; exact under {@code lock}.
     */
    private int estimatedBacklog() {
        long unread = unreadBytes;
        long onDisk = unread <= 0 ? 0 : (unread + scheduler.segmentSize() - 1) / scheduler.segmentSize();
        return (int) Math.min(Integer.MAX_VALUE, queuedDataBuffers + onDisk);
    }

    @Override
    public void releaseAllResources() {
        List<Buffer> dropped;
        boolean first;
        boolean closeHandles;
        synchronized (lock) {
            first = state != State.RELEASED;
            closeHandles = !handlesClosed;
            handlesClosed = true;
            state = State.RELEASED;
            released = true;
            dropped = drainLocked();
        }
        if (first) {
            scheduler.unregister(this);
        }
        recycleAll(dropped);
        if (closeHandles) {
            // The handle closes once the spans still in flight are written too.
            dataFile.release();
            closeQuietly(index);
        }
        partition.onViewReleased(this);
    }

    @Override
    public boolean isReleased() {
        return released;
    }

    @Override
    public Throwable getFailureCause() {
        synchronized (lock) {
            return failureCause;
        }
    }

    @GuardedBy("lock")
    private List<Buffer> drainLocked() {
        List<Buffer> dropped = new ArrayList<>(queue.size());
        for (Object entry : queue) {
            if (entry instanceof Buffer buffer) {
                dropped.add(buffer);
            }
        }
        queue.clear();
        queuedDataBuffers = 0;
        return dropped;
    }

    private static void recycleAll(List<Buffer> buffers) {
        for (Buffer buffer : buffers) {
            buffer.recycleBuffer();
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // Read-only handle: nothing to lose.
            }
        }
    }

    @Override
    public String toString() {
        return "reader of subpartition " + subpartition + " of blocking partition " + partition.partitionId();
    }
}
