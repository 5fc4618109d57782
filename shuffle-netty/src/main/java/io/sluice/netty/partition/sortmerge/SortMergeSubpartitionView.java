package io.sluice.netty.partition.sortmerge;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.netty.partition.SharedFileChannel;
import io.sluice.netty.partition.StoredChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <p>Integrity: before the first read the I/O thread checks the index (its version, the checksum of its header, of
 * this subpartition's totals and of every entry, and that the data file holds every span). Each buffer read is
 * checked against its checksum before anything uses it (decompression included); a file span's checksum travels
 * with its bytes and the receiver checks it. Each region must hold the buffers its entry counts, and the whole
 * subpartition the data buffers and bytes of its totals, which the end-of-partition event carries on to the
 * consumer's gate. A mismatch fails the view with {@link CorruptDataException} naming the file and the offset.
 *
 * <p>Ownership: queued buffers belong to this view until {@link #getNextBuffer()} hands one over (the taker recycles
 * it, which returns its segment to the read budget); buffers still queued at release are recycled here.
 *
 * <p>Fair share: the view counts the read segments it holds, queued or taken and not yet recycled, and reads only
 * while that is below the share the scheduler gives it. Read-ahead its consumer has not taken can be given back
 * ({@link #giveBack}): taken off the tail of the queue and read again later, from the file positions queued with it.
 */
final class SortMergeSubpartitionView implements ResultSubpartitionView {

    private static final Logger LOG = LoggerFactory.getLogger(SortMergeSubpartitionView.class);

    /** Life cycle of the view. */
    /**
     * Most stored buffers one scatter read takes: 32 buffers of 32 KiB are 1 MiB a system call, the block size at
     * which sequential reads of a disk stop getting faster; 65 vectors, far below the kernel's limit of 1024.
     */
    static final int MAX_RUN_BUFFERS = 32;

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
    private final StoredChecksum checksum = new StoredChecksum();
    /** Whether the index header says every buffer carries its checksum. */
    private boolean buffersChecksummed;
    private int nextRegion;
    private long position;
    private long remainingInRegion;
    /** Buffers of the current region's span not read yet, as its index entry counts them. */
    private int regionBuffersLeft;
    /** This subpartition's totals from the index: data buffers and data bytes (decompressed). */
    private long expectedDataBuffers;
    private long expectedDataBytes;
    /** Data buffers and bytes read and queued so far, less those given back to the budget (read again later). */
    private long dataBuffersQueued;
    private long dataBytesQueued;
    /** Whether {@code header} already holds the next buffer's header (read together with the previous payload). */
    private boolean headerPrefetched;
    /** Where the data channel's own position is (-1: unknown); only the scatter reads below move it. */
    private long channelPosition = -1;
    /** Scatter reads of runs, and the buffers they queued; for tests and diagnostics (I/O thread writes). */
    private long scatterReads;
    private long buffersReadInRuns;
    /** One run of {@link #readRun}: its buffers, their (guessed) lengths, the header stored after each. */
    private final Buffer[] runBuffers = new Buffer[MAX_RUN_BUFFERS];
    private final int[] runLengths = new int[MAX_RUN_BUFFERS];
    private final ByteBuffer[] runHeaders = new ByteBuffer[MAX_RUN_BUFFERS];
    private final ByteBuffer[] runScatter = new ByteBuffer[2 * MAX_RUN_BUFFERS];
    private boolean sized;
    /** Bytes of this subpartition still on disk, unread; -1 until the I/O thread has summed the index. */
    private volatile long unreadBytes = -1;

    private final Object lock = new Object();
    /** {@link Buffer}s and {@link Span}s, in stream order. */
    @GuardedBy("lock")
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    /** Where each queued entry's stored buffer starts in the data file (its header), in the queue's order. */
    @GuardedBy("lock")
    private final PositionQueue queuedPositions = new PositionQueue();
    @GuardedBy("lock")
    private State state = State.READING;
    @GuardedBy("lock")
    private Throwable failureCause;
    /** Whether the consumer let go and the file handles were given up (once, also after a failure). */
    @GuardedBy("lock")
    private boolean handlesClosed;
    /** Data buffers in the queue; read without the lock by the scheduler as an estimate. */
    private volatile int queuedDataBuffers; // written under lock
    /** Data buffers in the queue that hold read segments (not file spans); written under lock. */
    private volatile int queuedReadBuffers;
    /**
     * Parked: read-ahead was given back while its consumer took nothing, and {@link #REREAD} is queued; nothing is
     * read until the consumer reaches it. Written under lock.
     */
    private volatile boolean parked;
    /** When the consumer last took something, or the queue last became non-empty: how stale the read-ahead is. */
    private volatile long lastActivityNanos = System.nanoTime();
    /** The I/O thread stopped reading at its share: a recycled segment of this view wakes it. */
    private volatile boolean stoppedAtShare;
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
     * Stands in the queue for read-ahead given back to the budget while the view was parked: the consumer that
     * reaches it asks for the data again (the view's only sign that a consumer waits for it).
     */
    private static final Object REREAD = new Object();
    /** The queued position of what has no place in the file: the end of partition and {@link #REREAD}. */
    private static final long NO_POSITION = -1;
    /** Read segments held: queued, or taken by the consumer and not yet recycled. Any thread. */
    private final AtomicInteger heldSegments = new AtomicInteger();
    /** Returns a read segment of this view to the budget. */
    private final BufferRecycler readSegmentRecycler = this::recycleReadSegment;

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
        ByteBuffer headers = ByteBuffer.allocateDirect(MAX_RUN_BUFFERS * PartitionFiles.BUFFER_HEADER_BYTES);
        for (int i = 0; i < MAX_RUN_BUFFERS; i++) {
            runHeaders[i] = headers.slice(i * PartitionFiles.BUFFER_HEADER_BYTES, PartitionFiles.BUFFER_HEADER_BYTES);
        }
    }

    /** Starts reading: registers with the scheduler. */
    void start() {
        scheduler.register(this);
    }

    // --------------------------------------------------------------------------------------------------------
    // Scheduler (I/O thread)
    // --------------------------------------------------------------------------------------------------------

    /** Scatter reads of runs so far; read it after the reader's end arrived (the queue's lock orders it). */
    long scatterReads() {
        return scatterReads;
    }

    /** Data buffers those scatter reads queued. */
    long buffersReadInRuns() {
        return buffersReadInRuns;
    }

    /** Orders readers of different partitions apart; the scheduler sorts by it, then by position. */
    int fileOrder() {
        return partition.fileOrder();
    }

    long nextReadPosition() {
        return position;
    }

    /** Whether the scheduler should read for this view: still reading, not at the end, not parked. Lock-free. */
    boolean wantsData() {
        return !released && !endQueued && !parked;
    }

    /** Read segments this view holds (queued, or with its consumer). */
    int heldSegments() {
        return heldSegments.get();
    }

    /** Queued buffers that hold read segments: what {@link #giveBack} could return now. Lock-free estimate. */
    int queuedReadBuffers() {
        return queuedReadBuffers;
    }

    /** See {@link #lastActivityNanos}. */
    long lastActivityNanos() {
        return lastActivityNanos;
    }

    /**
     * Whether a recycled segment that leaves this view holding {@code held} should wake the scheduler: it stopped
     * at its share and is below it now. Clears the flag when it answers yes. Under the scheduler's lock.
     */
    boolean wakeOnRecycle(int held) {
        if (stoppedAtShare && held < lastShare) {
            stoppedAtShare = false;
            return true;
        }
        return false;
    }

    /** A read segment of the budget, for this view: counted against its share. I/O thread. */
    BufferRecycler takeReadSegment() {
        heldSegments.incrementAndGet();
        return readSegmentRecycler;
    }

    private void recycleReadSegment(MemorySegment segment) {
        scheduler.recycle(segment, this, heldSegments.decrementAndGet());
    }

    /**
     * Whether this view may take another read segment: it holds fewer than {@code share}. When it may not, it says
     * it stopped at its share first and checks again, so that a segment recycled meanwhile is not missed (the
     * recycler decrements, then checks the flag).
     */
    private boolean belowShare(int share) {
        if (heldSegments.get() < share) {
            return true;
        }
        stoppedAtShare = true;
        if (heldSegments.get() < share) {
            stoppedAtShare = false;
            return true;
        }
        return false;
    }

    /**
     * Reads buffers until this view holds {@code share} data buffers or read segments, the read budget is used up,
     * or the subpartition ends.
     *
     * @return true when it stopped because the budget had no free segment while it held less than its share
     */
    boolean readSome(BlockingReadScheduler budget, int share) {
        try {
            if (!sized) {
                checkIndex();
            }
            lastShare = share;
            while (!released && !endQueued && !parked && queuedDataBuffers < share && belowShare(share)) {
                if (remainingInRegion == 0) {
                    checkRegionEnded();
                    if (nextRegion == partition.regions()) {
                        checkTotals();
                        endQueued = true;
                        enqueue(EventSerializer.endOfPartition(expectedDataBytes, expectedDataBuffers), NO_POSITION);
                        return false;
                    }
                    readIndexEntry(nextRegion++);
                    continue;
                }
                if (headerPrefetched) {
                    // Read with the previous buffer's bytes.
                    headerPrefetched = false;
                } else {
                    readFully(data, partition.dataPath(), header.clear(), position);
                    header.flip();
                }
                int length = checkHeader(header, position);
                boolean compressed = (header.get(5) & PartitionFiles.FLAG_COMPRESSED) != 0;
                long payloadPosition = position + PartitionFiles.BUFFER_HEADER_BYTES;
                Object entry;
                if (header.get(4) == PartitionFiles.KIND_EVENT) {
                    byte[] bytes = new byte[length];
                    ByteBuffer payload = ByteBuffer.wrap(bytes);
                    readFully(data, partition.dataPath(), payload, payloadPosition);
                    verifyChecksum(position, header, payload.flip());
                    entry = new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, length);
                } else if (fileSpans && !compressed) {
                    // The receiver verifies the checksum: the bytes go from the file to the socket unread.
                    entry = new Span(payloadPosition, length);
                    countData(length);
                } else if (!compressed) {
                    if (!readRun(budget, share, payloadPosition, length)) {
                        // The budget is used up: a recycled buffer wakes the scheduler again.
                        return true;
                    }
                    continue;
                } else {
                    Buffer buffer = budget.requestBuffer(this);
                    if (buffer == null) {
                        // The budget is used up: a recycled buffer wakes the scheduler again.
                        return true;
                    }
                    try {
                        buffer.setSize(readCompressed(budget, buffer, position, length));
                    } catch (Throwable e) {
                        buffer.recycleBuffer();
                        throw e;
                    }
                    countData(buffer.getSize());
                    entry = buffer;
                }
                long stored = position;
                position = payloadPosition + length;
                remainingInRegion -= PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
                unreadBytes -= PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
                regionBuffersLeft--;
                enqueue(entry, stored);
            }
            return false;
        } catch (CorruptDataException e) {
            if (!released) {
                LOG.warn("{}", e.getMessage());
                fail(e);
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
        return false;
    }

    /**
     * Checks the stored header in {@code stored} (of the buffer at {@code offset}) before anything is read on its
     * word: a known kind and flags, a length that fits the region, a buffer the region's entry counts.
     *
     * @return the buffer's stored length
     */
    private int checkHeader(ByteBuffer stored, long offset) throws CorruptDataException {
        int length = stored.getInt(0);
        byte kind = stored.get(4);
        byte flags = stored.get(5);
        int known = PartitionFiles.FLAG_COMPRESSED | PartitionFiles.FLAG_CHECKSUM;
        boolean checksummed = (flags & PartitionFiles.FLAG_CHECKSUM) != 0;
        if ((kind != PartitionFiles.KIND_DATA && kind != PartitionFiles.KIND_EVENT) || (flags & ~known) != 0
                || stored.getShort(6) != 0 || checksummed != buffersChecksummed
                || (kind == PartitionFiles.KIND_EVENT && (flags & PartitionFiles.FLAG_COMPRESSED) != 0)
                || length < 0 || PartitionFiles.BUFFER_HEADER_BYTES + (long) length > remainingInRegion
                || regionBuffersLeft == 0) {
            throw corrupt(partition.dataPath(), offset, "its stored buffer header (length " + length + ", kind "
                    + kind + ", flags " + flags + ", reserved " + stored.getShort(6) + ") is not one this partition"
                    + " wrote: " + remainingInRegion + " bytes and " + regionBuffersLeft + " buffers are left in the"
                    + " region, and its buffers " + (buffersChecksummed ? "carry" : "carry no") + " checksums");
        }
        return length;
    }

    /**
     * Verifies the checksum of the buffer at {@code offset} whose header is in {@code stored} and whose stored bytes
     * are {@code payload}'s remaining ones (left as they were). Nothing to do for a partition without checksums.
     */
    private void verifyChecksum(long offset, ByteBuffer stored, ByteBuffer payload) throws CorruptDataException {
        if (!buffersChecksummed) {
            return;
        }
        int expected = stored.getInt(PartitionFiles.BUFFER_CHECKSUM_OFFSET);
        int actual = checksum.ofBuffer(offset, stored.getLong(0), payload);
        if (actual != expected) {
            throw corrupt(partition.dataPath(), offset, String.format("the stored buffer there (%d bytes%s) fails"
                    + " its CRC32C check: stored 0x%08x, computed 0x%08x", payload.remaining(),
                    (stored.get(5) & PartitionFiles.FLAG_COMPRESSED) != 0 ? ", lz4" : "", expected, actual));
        }
    }

    /** Counts a data buffer of {@code bytes} (decompressed) queued, for the check against the totals. */
    private void countData(int bytes) {
        dataBuffersQueued++;
        dataBytesQueued += bytes;
    }

    /** At the end of a region's span: every buffer its entry counts was read. */
    private void checkRegionEnded() throws CorruptDataException {
        if (regionBuffersLeft != 0) {
            throw corrupt(partition.indexPath(), PartitionFiles.indexEntryPosition(nextRegion - 1,
                    partition.numberOfSubpartitions(), subpartition), "the span of region " + (nextRegion - 1)
                    + " ended " + regionBuffersLeft + " buffers short of the count in its index entry");
        }
    }

    /** At the end of the subpartition: the data buffers and bytes read are those of its totals. */
    private void checkTotals() throws CorruptDataException {
        if (dataBuffersQueued != expectedDataBuffers || dataBytesQueued != expectedDataBytes) {
            throw corrupt(partition.indexPath(), PartitionFiles.totalsPosition(partition.regions(),
                    partition.numberOfSubpartitions(), subpartition), "the subpartition's totals say "
                    + expectedDataBuffers + " data buffers of " + expectedDataBytes + " bytes, but its regions held "
                    + dataBuffersQueued + " of " + dataBytesQueued + " bytes");
        }
    }

    /**
     * Reads and decompresses the compressed stored buffer at {@code offset} (header in {@link #header}, {@code length}
     * stored bytes) into {@code buffer}, after verifying its checksum.
     */
    private int readCompressed(BlockingReadScheduler budget, Buffer buffer, long offset, int length)
            throws IOException {
        ByteBuffer scratch = budget.compressedScratch();
        if (length > scratch.capacity()) {
            throw corrupt(partition.dataPath(), offset, "a compressed buffer of " + length + " bytes is longer"
                    + " than any the segment size " + budget.segmentSize() + " compresses to");
        }
        scratch.clear().limit(length);
        readFully(data, partition.dataPath(), scratch, offset + PartitionFiles.BUFFER_HEADER_BYTES);
        scratch.flip();
        verifyChecksum(offset, header, scratch);
        int capacity = buffer.getMaxCapacity();
        try {
            return budget.decompressor().decompress(scratch, 0, length, buffer.getMemorySegment().wrap(0, capacity),
                    0, capacity, "the buffer");
        } catch (IOException e) {
            throw corrupt(partition.dataPath(), offset, e.getMessage(), e);
        }
    }

    /**
     * Reads the uncompressed data buffer of {@code firstLength} bytes at {@code payloadPosition} (its header is
     * read) and as many of the stored buffers after it in this region as the share and the budget allow, with one
     * scatter read ({@code readv}) into buffers of the budget, and queues them.
     *
     * <p>Why a guess: the writer fills every buffer of a subpartition's span before it starts the next, so in a span
     * every buffer but the last one is full ({@code segmentSize} bytes) and the last one ends the span: the lengths
     * of the buffers that follow can be told from the bytes left in the region, and their headers need not be read
     * one by one first. The headers are read with the data (between the payloads) and checked: at the first that
     * says otherwise (a compressed buffer, an event, a shorter buffer), that buffer and those after it are given
     * back unread, and reading goes on from that header. One system call per run instead of one per buffer, which
     * matters on a virtual machine where every system call is expensive.
     *
     * @return false when the budget had no buffer for the first one (nothing was read)
     */
    private boolean readRun(BlockingReadScheduler budget, int share, long payloadPosition, int firstLength)
            throws IOException {
        int capacity = budget.segmentSize();
        int hdr = PartitionFiles.BUFFER_HEADER_BYTES;
        if (firstLength > capacity) {
            throw corrupt(partition.dataPath(), payloadPosition - hdr, "a stored buffer of " + firstLength
                    + " bytes exceeds the segment size " + capacity + "; was it written with another segment size?");
        }
        int wanted = Math.max(1, Math.min(MAX_RUN_BUFFERS, share - Math.max(queuedDataBuffers, heldSegments.get())));
        runLengths[0] = firstLength;
        long left = remainingInRegion - hdr - firstLength;
        int planned = 1;
        while (planned < wanted && left > hdr) {
            int guess = (int) Math.min(capacity, left - hdr);
            runLengths[planned++] = guess;
            left -= hdr + guess;
        }
        int buffers = 0;
        try {
            while (buffers < planned) {
                Buffer buffer = budget.requestBuffer(this);
                if (buffer == null) {
                    break;
                }
                runBuffers[buffers++] = buffer;
            }
            if (buffers == 0) {
                return false;
            }
            readRunFully(payloadPosition, buffers);
        } catch (Throwable e) {
            // An Error too (direct memory, say): the segments go back to the budget before the reader fails.
            recycleRun(0, buffers);
            throw e;
        }
        // runHeaders[i] is the header stored after buffer i; buffer i + 1 is what was guessed when it agrees.
        int good = 1;
        while (good < buffers && good < regionBuffersLeft && isGuessed(runHeaders[good - 1], runLengths[good])) {
            good++;
        }
        try {
            // Every buffer of the run is checked before any is handed on.
            long headerAt = payloadPosition - hdr;
            for (int i = 0; i < good; i++) {
                verifyChecksum(headerAt, i == 0 ? header : runHeaders[i - 1],
                        runBuffers[i].getOwnerView(0, runLengths[i]));
                headerAt += hdr + (long) runLengths[i];
            }
        } catch (CorruptDataException e) {
            recycleRun(0, buffers);
            throw e;
        }
        long at = payloadPosition;
        for (int i = 0; i < good; i++) {
            Buffer buffer = runBuffers[i];
            runBuffers[i] = null;
            buffer.setSize(runLengths[i]);
            long stored = hdr + (long) runLengths[i];
            long storedAt = at - hdr;
            at += stored;
            remainingInRegion -= stored;
            unreadBytes -= stored;
            regionBuffersLeft--;
            buffersReadInRuns++;
            countData(runLengths[i]);
            enqueue(buffer, storedAt);
        }
        // The payload of the next buffer starts after its header.
        position = at - hdr;
        recycleRun(good, buffers);
        ByteBuffer next = runHeaders[good - 1];
        if (next.position() == hdr) {
            // The header after the last good buffer was read with it: no read of its own.
            header.clear();
            header.put(next.flip());
            header.flip();
            headerPrefetched = true;
        }
        return true;
    }

    /**
     * Whether the stored header {@code stored} says what {@link #readRun} guessed: a data buffer of that length,
     * stored as it is (with a checksum if the partition's buffers have them).
     */
    private boolean isGuessed(ByteBuffer stored, int length) {
        byte plain = buffersChecksummed ? PartitionFiles.FLAG_CHECKSUM : 0;
        return stored.getInt(0) == length && stored.get(4) == PartitionFiles.KIND_DATA && stored.get(5) == plain
                && stored.getShort(6) == 0;
    }

    /**
     * Reads the payloads of the first {@code buffers} run buffers from {@code at}, with the header after each one
     * (after the last one only if the region goes on), in one scatter read.
     */
    private void readRunFully(long at, int buffers) throws IOException {
        int hdr = PartitionFiles.BUFFER_HEADER_BYTES;
        long runBytes = 0;
        int vectors = 0;
        for (int i = 0; i < buffers; i++) {
            // The run's buffers are this reader's until handed out below: their owner views need no new object.
            runScatter[vectors++] = runBuffers[i].getOwnerView(0, runLengths[i]);
            runBytes += runLengths[i];
            runHeaders[i].clear();
            // After the last buffer, its successor's header only if one follows in the region (runBytes holds
            // the headers read so far, not buffer 0's own, which was read before).
            if (i < buffers - 1 || remainingInRegion - hdr - runBytes > hdr) {
                runScatter[vectors++] = runHeaders[i];
                runBytes += hdr;
            }
        }
        if (channelPosition != at) {
            data.position(at);
        }
        long read = 0;
        int first = 0;
        while (read < runBytes) {
            long n = data.read(runScatter, first, vectors - first);
            if (n < 0) {
                channelPosition = -1;
                Arrays.fill(runScatter, 0, vectors, null);
                throw corrupt(partition.dataPath(), at + read, "the file ends there, inside the span its index"
                        + " entry gives; was it cut short after the reader checked its size?");
            }
            read += n;
            while (first < vectors && !runScatter[first].hasRemaining()) {
                first++;
            }
        }
        channelPosition = at + runBytes;
        scatterReads++;
        Arrays.fill(runScatter, 0, vectors, null);
    }

    private void recycleRun(int from, int to) {
        for (int i = from; i < to; i++) {
            runBuffers[i].recycleBuffer();
            runBuffers[i] = null;
        }
    }

    /**
     * Checks the index before the first read: its header (magic, version, subpartitions, checksum), its size, this
     * subpartition's totals and every entry of it (checksum, and a span inside the data file); sums the spans, for
     * the backlog the consumer is told (so it can lend floating buffers).
     */
    private void checkIndex() throws IOException {
        Path indexPath = partition.indexPath();
        int subpartitions = partition.numberOfSubpartitions();
        int regions = partition.regions();
        ByteBuffer indexHeader = ByteBuffer.allocate(PartitionFiles.INDEX_HEADER_BYTES);
        readFully(index, indexPath, indexHeader, 0);
        indexHeader.flip();
        int magic = indexHeader.getInt(0);
        int version = indexHeader.getInt(4);
        if (magic != PartitionFiles.INDEX_MAGIC) {
            throw corrupt(indexPath, 0, String.format("the file starts with 0x%08x, not with the magic of an index"
                    + " file (0x%08x, \"SLIX\")", magic, PartitionFiles.INDEX_MAGIC));
        }
        if (version != PartitionFiles.INDEX_VERSION) {
            throw corrupt(indexPath, 4, "the index has format version " + version + ", and this Sluice reads version "
                    + PartitionFiles.INDEX_VERSION + " only (version 1 had no checksums): it was written by another"
                    + " Sluice version, or damaged");
        }
        checkRecord(indexHeader, PartitionFiles.INDEX_HEADER_BYTES, indexPath, 0, "the index header");
        int flags = indexHeader.getInt(12);
        if (indexHeader.getInt(8) != subpartitions || (flags & ~PartitionFiles.INDEX_FLAG_CHECKSUMS) != 0) {
            throw corrupt(indexPath, 8, "the index header says " + indexHeader.getInt(8) + " subpartitions and flags "
                    + flags + ", but the partition has " + subpartitions);
        }
        buffersChecksummed = (flags & PartitionFiles.INDEX_FLAG_CHECKSUMS) != 0;
        long indexBytes = index.size();
        long expectedIndexBytes = PartitionFiles.indexFileBytes(regions, subpartitions);
        if (indexBytes != expectedIndexBytes) {
            throw corrupt(indexPath, Math.min(indexBytes, expectedIndexBytes), "the index file is " + indexBytes
                    + " bytes long, but one of " + regions + " regions of " + subpartitions + " subpartitions is "
                    + expectedIndexBytes);
        }
        long totalsAt = PartitionFiles.totalsPosition(regions, subpartitions, subpartition);
        ByteBuffer totals = ByteBuffer.allocate(PartitionFiles.TOTALS_BYTES);
        readFully(index, indexPath, totals, totalsAt);
        totals.flip();
        checkRecord(totals, PartitionFiles.TOTALS_BYTES, indexPath, totalsAt, "the subpartition's totals");
        expectedDataBuffers = totals.getLong(0);
        expectedDataBytes = totals.getLong(8);
        long dataFileBytes = data.size();
        long total = 0;
        for (int region = 0; region < regions; region++) {
            readIndexEntry(region);
            long end = position + remainingInRegion;
            if (end > dataFileBytes) {
                throw corrupt(partition.dataPath(), dataFileBytes, "the data file ends at offset " + dataFileBytes
                        + ", but the index places region " + region + " of the subpartition at offsets " + position
                        + " to " + end + ": the file was cut short");
            }
            total += remainingInRegion;
        }
        remainingInRegion = 0;
        regionBuffersLeft = 0;
        position = 0;
        unreadBytes = total;
        sized = true;
    }

    /** Reads and checks this subpartition's index entry of {@code region}: the region's span is next. */
    private void readIndexEntry(int region) throws IOException {
        loadIndexEntry(region);
        position = indexEntry.getLong(0);
        remainingInRegion = indexEntry.getLong(Long.BYTES);
        regionBuffersLeft = indexEntry.getInt(2 * Long.BYTES);
    }

    /**
     * Reads this subpartition's index entry of {@code region} into {@code indexEntry} (its start, its length, its
     * buffers) and checks it: its checksum, and numbers a writer stores.
     */
    private void loadIndexEntry(int region) throws IOException {
        long at = PartitionFiles.indexEntryPosition(region, partition.numberOfSubpartitions(), subpartition);
        indexEntry.clear();
        readFully(index, partition.indexPath(), indexEntry, at);
        indexEntry.flip();
        checkRecord(indexEntry, PartitionFiles.INDEX_ENTRY_BYTES, partition.indexPath(), at,
                "the index entry of region " + region);
        long offset = indexEntry.getLong(0);
        long length = indexEntry.getLong(Long.BYTES);
        int buffers = indexEntry.getInt(2 * Long.BYTES);
        if (offset < 0 || length < 0 || buffers < 0 || (length == 0) != (buffers == 0)
                || length < (long) buffers * PartitionFiles.BUFFER_HEADER_BYTES) {
            throw corrupt(partition.indexPath(), at, "the index entry of region " + region + " says " + buffers
                    + " buffers in " + length + " bytes at offset " + offset + ", which no writer stores");
        }
    }

    /**
     * Gives up to {@code segments} read segments of queued read-ahead back to the budget, the latest first, and
     * rewinds so that what went back is read again later; with {@code park}, queues {@link #REREAD} and reads
     * nothing more until the consumer reaches it. A failure to go back fails this view, not the caller. I/O thread.
     *
     * @return the read segments given back
     */
    int giveBack(int segments, boolean park) {
        List<Buffer> back = new ArrayList<>();
        long rewindTo = NO_POSITION;
        int taken = 0;
        // What went back is counted again when it is read again: the stored buffers, the data buffers and bytes.
        int storedBack = 0;
        int dataBuffersBack = 0;
        long dataBytesBack = 0;
        synchronized (lock) {
            if (state == State.RELEASED) {
                return 0;
            }
            while (taken < segments && queuedReadBuffers > 0) {
                Object entry = queue.pollLast();
                long storedAt = queuedPositions.removeLast();
                if (storedAt != NO_POSITION) {
                    rewindTo = storedAt;
                    storedBack++;
                }
                if (isData(entry)) {
                    queuedDataBuffers--;
                    dataBuffersBack++;
                    dataBytesBack += entry instanceof Span span ? span.length() : ((Buffer) entry).getSize();
                }
                if (entry instanceof Buffer buffer) {
                    if (buffer.isBuffer()) {
                        queuedReadBuffers--;
                        taken++;
                    }
                    back.add(buffer);
                }
            }
            if (taken == 0) {
                return 0;
            }
            if (park) {
                parked = true;
                queue.add(REREAD);
                queuedPositions.addLast(NO_POSITION);
            }
        }
        recycleAll(back);
        dataBuffersQueued -= dataBuffersBack;
        dataBytesQueued -= dataBytesBack;
        try {
            rewind(rewindTo, storedBack);
        } catch (CorruptDataException e) {
            if (!released) {
                LOG.warn("{}", e.getMessage());
                fail(e);
            }
        } catch (IOException e) {
            if (!released) {
                fail(new ShuffleException("cannot go back to offset " + rewindTo + " of " + partition.dataPath()
                        + " to read subpartition " + subpartition + " of blocking partition "
                        + partition.partitionId() + " again: " + e.getMessage(), e));
            }
        }
        return taken;
    }

    /**
     * Goes back to the stored buffer whose header is at {@code headerPosition}, in the current region or an earlier
     * one: the next read starts there. {@code storedBack} stored buffers were given back, that one and every one
     * read after it; the region goes back to counting those of them it holds as unread. I/O thread.
     */
    private void rewind(long headerPosition, int storedBack) throws IOException {
        long skipped = 0;
        // Stored buffers read from the regions after the one being searched, newest region first.
        int readAfter = 0;
        for (int region = nextRegion - 1; region >= 0; region--) {
            loadIndexEntry(region);
            long start = indexEntry.getLong(0);
            long length = indexEntry.getLong(Long.BYTES);
            int buffers = indexEntry.getInt(2 * Long.BYTES);
            // The current region has regionBuffersLeft unread; every earlier one was read whole.
            int read = region == nextRegion - 1 ? buffers - regionBuffersLeft : buffers;
            if (start <= headerPosition && headerPosition < start + length) {
                int backHere = storedBack - readAfter;
                if (backHere < 1 || backHere > read) {
                    throw new IOException("read-ahead given back from offset " + headerPosition + " of "
                            + partition.dataPath() + " is " + storedBack + " stored buffers, but " + readAfter
                            + " were read after region " + region + " and " + read + " in it");
                }
                long remaining = start + length - headerPosition;
                unreadBytes += remaining + skipped - remainingInRegion;
                regionBuffersLeft = buffers - read + backHere;
                nextRegion = region + 1;
                position = headerPosition;
                remainingInRegion = remaining;
                headerPrefetched = false;
                endQueued = false;
                return;
            }
            skipped += length;
            readAfter += read;
        }
        throw new IOException("read-ahead given back at offset " + headerPosition + " of " + partition.dataPath()
                + " lies in no region of subpartition " + subpartition + " read so far");
    }

    /**
     * Checks the checksum of the index record of {@code length} bytes in {@code record} (position 0), read from
     * {@code at}.
     */
    private void checkRecord(ByteBuffer record, int length, Path file, long at, String what)
            throws CorruptDataException {
        int expected = record.getInt(length - Integer.BYTES);
        int actual = PartitionFiles.recordChecksum(record, length, at, checksum);
        if (actual != expected) {
            throw corrupt(file, at, String.format("%s there fails its CRC32C check: stored 0x%08x, computed 0x%08x",
                    what, expected, actual));
        }
    }

    /** Reads {@code target}'s remaining bytes from {@code at} of {@code channel} (the file {@code path}). */
    private void readFully(FileChannel channel, Path path, ByteBuffer target, long at) throws IOException {
        long p = at;
        while (target.hasRemaining()) {
            int n = channel.read(target, p);
            if (n < 0) {
                throw corrupt(path, p, "the file ends there, " + target.remaining() + " bytes before the end of what"
                        + " the index says is there");
            }
            p += n;
        }
    }

    private CorruptDataException corrupt(Path file, long offset, String what) {
        return corrupt(file, offset, what, null);
    }

    /** The failure of this reader at {@code offset} of {@code file}: partition, subpartition, file, offset, what. */
    private CorruptDataException corrupt(Path file, long offset, String what, Throwable cause) {
        return new CorruptDataException("subpartition " + subpartition + " of blocking partition "
                + partition.partitionId() + " is damaged at offset " + offset + " of " + file + ": " + what
                + "; the partition must be produced again", cause);
    }

    /**
     * Queues a Buffer or a Span stored at {@code storedAt} (its header; {@link #NO_POSITION} for the end of
     * partition); a buffer that arrives after the release is recycled.
     */
    private void enqueue(Object entry, long storedAt) {
        if (BufferTrace.ENABLED && entry instanceof Buffer read && read.isBuffer()) {
            // For a stored partition the read from disk is the commit: the buffer becomes readable here.
            BufferTrace.record(BufferTrace.Hop.COMMIT, 0, -1, read.getMemorySegment());
        }
        boolean notify;
        synchronized (lock) {
            if (state == State.RELEASED) {
                notify = false;
            } else {
                notify = queue.isEmpty();
                queue.add(entry);
                queuedPositions.addLast(storedAt);
                if (isData(entry)) {
                    queuedDataBuffers++;
                    if (entry instanceof Buffer) {
                        queuedReadBuffers++;
                    }
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
            lastActivityNanos = System.nanoTime();
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
            Object first = queue.peek();
            if (first == REREAD) {
                // The consumer got to read-ahead that went back: read it again (the queue is empty now, so the
                // first buffer read notifies the consumer).
                queue.poll();
                queuedPositions.removeFirst();
                parked = false;
                buffer = null;
                more = false;
                nextIsEvent = false;
                backlog = 0;
            } else if (first instanceof Buffer head) {
                buffer = head;
                queue.poll();
                queuedPositions.removeFirst();
                if (buffer.isBuffer()) {
                    queuedDataBuffers--;
                    queuedReadBuffers--;
                }
                Object next = queue.peek();
                more = next != null;
                nextIsEvent = isEvent(next);
                backlog = estimatedBacklog();
            } else {
                // Empty, or a file span next: the sender takes that with pollFileSpan(int).
                return null;
            }
        }
        lastActivityNanos = System.nanoTime();
        if (buffer == null) {
            scheduler.wakeUp();
            return null;
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
            queuedPositions.removeFirst();
            int buffers = 1;
            long dataBytes = first.length();
            long end = first.position() + first.length();
            // Take the spans that follow back to back in the file (the same region): one sendfile for all of them.
            while (buffers < maxBuffers && queue.peek() instanceof Span next
                    && next.position() == end + PartitionFiles.BUFFER_HEADER_BYTES) {
                queue.poll();
                queuedPositions.removeFirst();
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
        lastActivityNanos = System.nanoTime();
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
        queuedPositions.clear();
        queuedDataBuffers = 0;
        queuedReadBuffers = 0;
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
