package io.sluice.netty.partition.sortmerge;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.EventDeliveryListener;
import io.sluice.api.InFlightDataSink;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordFraming;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.WriterMetrics;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferPoolDestroyedException;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.file.FileErrors;
import io.sluice.netty.partition.AbstractResultPartition;
import io.sluice.netty.partition.BufferAvailabilityListener;
import io.sluice.netty.partition.PartitionBufferPoolFactory;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.netty.partition.SubpartitionRangeView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A blocking partition in the sort-merge style: records are framed ({@link io.sluice.api.RecordFraming}) into
 * buffers of the partition's pool, kept per subpartition; when the pool has no free buffer, all of them are written
 * to the data file as one region, subpartition by subpartition, with each subpartition's offset and length in the
 * index file (layout: {@link PartitionFiles}), and go back to the pool. Broadcast records and events go into a
 * region of their own, written once and read by every subpartition. {@link #finish()} writes the last region,
 * returns the pool's memory and makes the partition readable, by any number of {@link SortMergeSubpartitionView}s,
 * until it is released; releasing deletes the files once the last reader has gone.
 *
 * <p>Threads: the emit, event and finish methods are called by one producer thread at a time and serialized by
 * {@code emitLock}, which guards the buffers of the open region and the file writer; views, release, close and
 * {@link #isReleased()} from any thread, under {@code stateLock} (guards the state, the readers and the file
 * deletion). A release from another thread first destroys the pool (waking a blocked producer), then takes
 * {@code emitLock} to recycle the region's buffers. Lock order: {@code emitLock}, then {@code stateLock}.
 *
 * <p>Memory: the pool may grow to {@code shuffle.blocking.write-memory} (fewer buffers when the environment has
 * less to spare), so a region is that large. When a redistribution lowers the pool's quota below the buffers the
 * open region holds (another pool or a gate's exclusive request in the same environment needs them), the region is
 * written early: at once on the redistributing thread when no emit is under way, else by the emit in progress as
 * it ends. So an idle writer never keeps memory that others wait for. That is why the pool is created outside this
 * partition's locks: creating it may ask other blocking partitions to write their regions on this thread.
 */
public final class SortMergeResultPartition extends AbstractResultPartition {

    private static final Logger LOG = LoggerFactory.getLogger(SortMergeResultPartition.class);
    private static final AtomicInteger FILE_ORDER = new AtomicInteger();

    /** Life cycle of the partition. */
    private enum State {
        /** Built, no memory, no files. */
        CREATED,
        /** Set up and registered: accepting records; readers are told to retry. */
        RUNNING,
        /** Everything is on disk: readable. */
        FINISHED,
        /** Unregistered; the files go once the last reader has gone. Terminal. */
        RELEASED
    }

    private final int subpartitions;
    private final FileChannelManager fileManager;
    private final BlockingReadScheduler readScheduler;
    private final BufferCompressor compressor;
    /** Whether every stored buffer carries its checksum ({@code shuffle.blocking.checksums}). */
    private final boolean checksums;
    private final int segmentSize;
    private final int fileOrder = FILE_ORDER.incrementAndGet();

    /** A lock rather than a monitor: the pool's over-quota listener only tries it, never waits for it. */
    private final ReentrantLock emitLock = new ReentrantLock();
    /** The pool's quota fell below what the open region holds: write the region as soon as no emit is under way. */
    private volatile boolean spillRequested;
    /** The buffer being filled, per subpartition; index {@code subpartitions} is the broadcast run. */
    @GuardedBy("emitLock")
    private final Buffer[] current;
    /** Full buffers (and events) of the open region, per subpartition; index {@code subpartitions}: broadcast. */
    @GuardedBy("emitLock")
    private final List<Buffer>[] regionBuffers;
    /** Whether the open region is a broadcast region. */
    @GuardedBy("emitLock")
    private boolean broadcastRegion;
    @GuardedBy("emitLock")
    private final ByteBuffer lengthPrefix = ByteBuffer.allocate(4);
    @GuardedBy("emitLock")
    private PartitionFileWriter fileWriter;

    private final Object stateLock = new Object();
    private volatile State state = State.CREATED; // written under stateLock
    private LocalBufferPool bufferPool; // written once under stateLock before RUNNING
    private Path directory; // written once under stateLock before RUNNING
    private volatile int regions; // written at finish, before FINISHED
    @GuardedBy("stateLock")
    private final Set<SortMergeSubpartitionView> readers = Collections.newSetFromMap(new IdentityHashMap<>());
    @GuardedBy("stateLock")
    private boolean filesDeleted;
    @GuardedBy("stateLock")
    private Throwable releaseCause;

    /**
     * @param compressor lz4 for the data buffers on disk, or null to store them as they are
     * @param checksums  whether every stored buffer carries its CRC32C, which its readers verify (the index always
     *                   carries its own)
     */
    @SuppressWarnings("unchecked")
    public SortMergeResultPartition(ResultPartitionId partitionId, String ownerName, int numberOfSubpartitions,
                                    ResultPartitionManager partitionManager, PartitionBufferPoolFactory poolFactory,
                                    FileChannelManager fileManager, BlockingReadScheduler readScheduler,
                                    BufferCompressor compressor, boolean checksums) {
        super(partitionId, ownerName, numberOfSubpartitions, partitionManager, poolFactory);
        this.subpartitions = numberOfSubpartitions;
        this.fileManager = fileManager;
        this.readScheduler = readScheduler;
        this.compressor = compressor;
        this.checksums = checksums;
        this.segmentSize = readScheduler.segmentSize();
        this.current = new Buffer[numberOfSubpartitions + 1];
        this.regionBuffers = new List[numberOfSubpartitions + 1];
        for (int i = 0; i <= numberOfSubpartitions; i++) {
            regionBuffers[i] = new ArrayList<>();
        }
    }

    @Override
    public void setup() throws IOException {
        checkNotSetUp();
        // Outside this partition's locks (see the class comment): the redistribution may spill other partitions.
        LocalBufferPool pool = poolFactory.createPartitionPool(partitionId, subpartitions);
        emitLock.lock();
        try {
            synchronized (stateLock) {
                if (state != State.CREATED) {
                    pool.lazyDestroy();
                    checkNotSetUp();
                }
                directory = fileManager.nextDirectory();
                bufferPool = pool;
                try {
                    fileWriter = openFiles();
                } catch (IOException e) {
                    bufferPool.lazyDestroy();
                    bufferPool = null;
                    deleteFiles();
                    throw writeFailure(e);
                }
                try {
                    partitionManager.registerPartition(this);
                } catch (ShuffleException | RuntimeException e) {
                    bufferPool.lazyDestroy();
                    bufferPool = null;
                    closeWriterQuietly();
                    deleteFiles();
                    throw e;
                }
                state = State.RUNNING;
                pool.setOverQuotaListener(this::onPoolOverQuota);
            }
        } finally {
            emitLock.unlock();
        }
        LOG.debug("Set up blocking partition {} of {} with {} subpartitions in {}", partitionId, ownerName,
                subpartitions, directory);
    }

    /** Creates the partition's files; makes the environment's directory again first if something deleted it. */
    @GuardedBy("stateLock")
    private PartitionFileWriter openFiles() throws IOException {
        try {
            return newFileWriter();
        } catch (IOException e) {
            // Opening a file in a deleted directory fails with "No such file" or, when a file now stands where a
            // parent was, "Not a directory": whatever the error, a missing directory is made again once.
            if (!fileManager.recreateDeleted(directory)) {
                throw e;
            }
            return newFileWriter();
        }
    }

    @GuardedBy("stateLock")
    private PartitionFileWriter newFileWriter() throws IOException {
        return new PartitionFileWriter(PartitionFiles.dataFile(directory, partitionId),
                PartitionFiles.indexFile(directory, partitionId), subpartitions, segmentSize, compressor,
                checksums);
    }

    private void checkNotSetUp() {
        State now = state;
        if (now != State.CREATED) {
            throw new IllegalStateException("partition " + partitionId + " of " + ownerName
                    + " is already set up (state " + now + ")");
        }
    }

    @Override
    public void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException {
        checkSubpartitionIndex(targetSubpartition);
        emitLock.lock();
        try {
            checkAcceptingRecords();
            leaveBroadcastRegion();
            writeRecord(record, targetSubpartition);
            counters.onRecords(1);
            spillIfRequested();
        } finally {
            emitLock.unlock();
        }
        afterEmit();
    }

    @Override
    public void broadcastRecord(ByteBuffer record) throws IOException {
        emitLock.lock();
        try {
            checkAcceptingRecords();
            enterBroadcastRegion();
            writeRecord(record, subpartitions);
            // Stored once, read by every subpartition: counted as the API counts a broadcast.
            counters.onRecords(subpartitions);
            spillIfRequested();
        } finally {
            emitLock.unlock();
        }
        afterEmit();
    }

    /** Events are kept in order with the records in a blocking partition: {@code priority} changes nothing. */
    @Override
    public void broadcastEvent(ByteBuffer event, boolean priority) throws IOException {
        checkEventSize(event);
        emitLock.lock();
        try {
            checkAcceptingRecords();
            enterBroadcastRegion();
            closeCurrent(subpartitions);
            regionBuffers[subpartitions].add(EventSerializer.userEvent(event));
            spillIfRequested();
        } finally {
            emitLock.unlock();
        }
        afterEmit();
    }

    /**
     * Stored in order as {@link #broadcastEvent}: a blocking partition is read only after it is finished, so its events
     * overtake nothing and {@code overtaken} is never called.
     */
    @Override
    public void broadcastPriorityEvent(ByteBuffer event, InFlightDataSink overtaken) throws IOException {
        Objects.requireNonNull(overtaken, "overtaken");
        broadcastEvent(event, true);
    }

    /**
     * Matches nothing: events keep their order in a blocking partition, so none is turned into a priority event,
     * {@code replacement} is not called and 0 is returned.
     *
     * @throws ShuffleException when the partition was released
     */
    @Override
    public int prioritizeQueuedEvent(Function<ByteBuffer, ByteBuffer> replacement, InFlightDataSink overtaken)
            throws IOException {
        Objects.requireNonNull(replacement, "replacement");
        Objects.requireNonNull(overtaken, "overtaken");
        checkAcceptingRecords();
        return 0;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Written into {@code targetSubpartition}'s own run of the open region, in order with its records: data in
     * buffers of their own (the buffer being filled is closed before and after, so the stored buffers hold exactly
     * these bytes), an event as an event for this subpartition only. Like {@link #emitRecord}, a full pool writes the
     * region out rather than wait for a consumer.
     */
    @Override
    public void emitRecovered(int targetSubpartition, ByteBuffer bytes, boolean isEvent) throws IOException {
        checkSubpartitionIndex(targetSubpartition);
        if (isEvent) {
            checkEventSize(bytes);
        }
        emitLock.lock();
        try {
            checkAcceptingRecords();
            leaveBroadcastRegion();
            closeCurrent(targetSubpartition);
            if (isEvent) {
                regionBuffers[targetSubpartition].add(EventSerializer.userEvent(bytes));
            } else {
                int start = bytes.position();
                try {
                    write(bytes, targetSubpartition);
                } finally {
                    bytes.position(start);
                }
                closeCurrent(targetSubpartition);
            }
            spillIfRequested();
        } finally {
            emitLock.unlock();
        }
        afterEmit();
    }

    /**
     * A blocking partition is read after it is finished, so there is nothing to align: the event is stored in
     * order like {@link #broadcastEvent}, and its consumers are not held back after it
     * ({@code resumeConsumption} has nothing to resume).
     */
    @Override
    public void broadcastBlockingEvent(ByteBuffer event) throws IOException {
        broadcastEvent(event, false);
    }

    /**
     * Stored as {@link #broadcastBlockingEvent} stores it (in order; nothing to align, nothing to overtake, so its
     * readers announce nothing); {@code delivery} is told {@link EventDeliveryListener.Outcome#SENT SENT} for every
     * subpartition on this thread once it is stored. Refused or failed as {@link #broadcastEvent}, in which case
     * {@code delivery} is told nothing.
     */
    @Override
    public void broadcastAnnouncedBlockingEvent(ByteBuffer event, EventDeliveryListener delivery)
            throws IOException {
        Objects.requireNonNull(delivery, "delivery");
        broadcastEvent(event, false);
        for (int i = 0; i < subpartitionCount; i++) {
            tellDeliveryHere(delivery, i, EventDeliveryListener.Outcome.SENT);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The backlog list is empty: the data goes to disk, and its readers read it after {@link #finish()}. The
     * producer is backpressured while it waits for a buffer after writing a region out.
     */
    @Override
    public WriterMetrics metrics() {
        return counters.snapshot(partitionId, ownerName, bytesOut(), buffersOut(), bufferPool, List.of());
    }

    /** Nothing to flush: data becomes readable at {@link #finish()}. */
    @Override
    public void flush(int targetSubpartition) {
        checkSubpartitionIndex(targetSubpartition);
    }

    /** Nothing to flush: data becomes readable at {@link #finish()}. */
    @Override
    public void flushAll() {
    }

    /** Always done: a full pool is written to disk by the next emit, so the writer never waits for a consumer. */
    @Override
    public CompletableFuture<?> availableFuture() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void finish() throws IOException {
        LocalBufferPool pool;
        emitLock.lock();
        try {
            State now = state;
            if (now != State.RUNNING) {
                if (now == State.RELEASED) {
                    throw released();
                }
                throw new IllegalStateException("partition " + partitionId + " of " + ownerName
                        + " cannot finish: " + (now == State.CREATED ? "setup() was not called" : "it is " + now));
            }
            spillRegion();
            try {
                fileWriter.finish();
                fileWriter.close();
            } catch (IOException e) {
                throw failWrite(e);
            }
            regions = fileWriter.regions();
            long bytes = fileWriter.dataBytes();
            synchronized (stateLock) {
                if (state != State.RUNNING) {
                    throw released();
                }
                state = State.FINISHED;
                pool = bufferPool;
            }
            LOG.debug("Blocking partition {} of {} finished: {} regions, {} bytes in {}", partitionId, ownerName,
                    regions, bytes, directory);
        } finally {
            emitLock.unlock();
        }
        // The data is on disk: the writing memory goes back to the environment.
        pool.lazyDestroy();
    }

    @Override
    public void fail(Throwable cause) {
        Objects.requireNonNull(cause, "cause");
        LOG.info("Blocking partition {} of {} failed by its producer: {}", partitionId, ownerName, cause.toString());
        release(cause);
    }

    /**
     * After {@link #finish()}, the data stays readable until the partition is released; before it, the partition
     * is released at once and its files deleted.
     */
    @Override
    public void close() {
        State now = state;
        if (now == State.FINISHED || now == State.RELEASED) {
            return;
        }
        release(now == State.CREATED ? null : new ProducerFailedException("blocking partition " + partitionId
                + " of " + ownerName + " was closed by its producer before finish()"));
    }

    @Override
    public void release(Throwable cause) {
        LocalBufferPool pool;
        List<SortMergeSubpartitionView> reading;
        synchronized (stateLock) {
            if (state == State.RELEASED) {
                return;
            }
            state = State.RELEASED;
            releaseCause = cause;
            pool = bufferPool;
            reading = new ArrayList<>(readers);
        }
        partitionManager.onPartitionReleased(this, cause);
        if (pool != null) {
            // Wakes a producer blocked on the pool; it sees RELEASED.
            pool.lazyDestroy();
        }
        emitLock.lock();
        try {
            recycleRegionBuffers();
            closeWriterQuietly();
        } finally {
            emitLock.unlock();
        }
        ProducerFailedException readFailure = new ProducerFailedException("blocking partition " + partitionId
                + " of " + ownerName + " was released while it was being read"
                + (cause == null ? "" : ": " + cause.getMessage()));
        for (SortMergeSubpartitionView view : reading) {
            view.fail(readFailure);
        }
        synchronized (stateLock) {
            if (readers.isEmpty()) {
                deleteFiles();
            }
        }
        LOG.debug("Released blocking partition {} of {}{}", partitionId, ownerName,
                cause == null ? "" : " (" + cause + ")");
    }

    @Override
    public boolean isReleased() {
        return state == State.RELEASED;
    }

    /** Whether {@link #finish()} was called and the partition is readable. */
    public boolean isFinished() {
        return state == State.FINISHED;
    }

    /** The partition's data file (for tests and diagnostics); null before setup. */
    public Path dataPath() {
        return directory == null ? null : PartitionFiles.dataFile(directory, partitionId);
    }

    /** The partition's index file; null before setup. */
    public Path indexPath() {
        return directory == null ? null : PartitionFiles.indexFile(directory, partitionId);
    }

    /** Regions written (after finish). */
    public int regions() {
        return regions;
    }

    int fileOrder() {
        return fileOrder;
    }

    /**
     * A new reader of one subpartition; readable only after {@link #finish()}.
     *
     * @throws PartitionNotFoundException before finish (the reader retries with its backoff), or when the files
     *                                    are gone
     * @throws IllegalStateException      when the partition is released
     */
    @Override
    public ResultSubpartitionView createSubpartitionView(int index, BufferAvailabilityListener listener)
            throws ShuffleException {
        checkRequestedSubpartition(index);
        SortMergeSubpartitionView view;
        synchronized (stateLock) {
            State now = state;
            if (now == State.RELEASED) {
                throw new IllegalStateException("blocking partition " + partitionId + " is released");
            }
            if (now != State.FINISHED) {
                // Not written yet: to the reader it is not there, and it retries.
                throw new PartitionNotFoundException(partitionId);
            }
            view = new SortMergeSubpartitionView(this, index, listener, readScheduler);
            readers.add(view);
        }
        view.start();
        return view;
    }

    /** A reader of the subpartitions {@code first..last}, one after the other; readable only after finish. */
    @Override
    public ResultSubpartitionView createSubpartitionRangeView(int first, int last, BufferAvailabilityListener listener)
            throws ShuffleException {
        checkRequestedSubpartition(last);
        return first == last ? createSubpartitionView(first, listener)
                : SubpartitionRangeView.open(this, first, last, listener);
    }

    /** A reader has gone: the files go with the last reader of a released partition. */
    void onViewReleased(SortMergeSubpartitionView view) {
        synchronized (stateLock) {
            if (readers.remove(view) && readers.isEmpty() && state == State.RELEASED) {
                deleteFiles();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Producer thread, under emitLock
    // ------------------------------------------------------------------------------------------------------------

    private void checkAcceptingRecords() throws ShuffleException {
        State now = state;
        if (now == State.RUNNING) {
            return;
        }
        if (now == State.RELEASED) {
            throw released();
        }
        throw new IllegalStateException("partition " + partitionId + " of " + ownerName + " does not accept records: "
                + (now == State.CREATED ? "setup() was not called" : "finish() was called"));
    }

    private ShuffleException released() {
        Throwable cause;
        synchronized (stateLock) {
            cause = releaseCause;
        }
        return new ShuffleException("blocking partition " + partitionId + " of " + ownerName + " was released"
                + (cause == null ? "" : ": " + cause.getMessage()), cause);
    }

    /**
     * The pool's listener (any thread, no lock held): the quota fell below the buffers out, and the open region holds
     * most of them. Writes the region now if no emit is under way; otherwise that emit does as it ends.
     */
    private void onPoolOverQuota() {
        spillRequested = true;
        afterEmit();
    }

    /** Writes the open region if the pool asked for its buffers. */
    @GuardedBy("emitLock")
    private void spillIfRequested() throws IOException {
        if (spillRequested) {
            spillRequested = false;
            spillRegion();
        }
    }

    /**
     * After an emit released {@code emitLock}: a request that came while it held the lock (and after its own check)
     * is served here, unless another emit has the lock again (it checks before it lets go). The request's volatile
     * write comes before its failed {@code tryLock}, so an emit that lets go afterwards sees it.
     */
    private void afterEmit() {
        if (!spillRequested || !emitLock.tryLock()) {
            return;
        }
        try {
            if (state == State.RUNNING) {
                spillIfRequested();
            }
        } catch (IOException e) {
            // failWrite has failed and released the partition, logged the error, and the producer's next call
            // throws it; this thread (a writer's, or one requesting memory) has nothing to add.
            LOG.debug("Writing the region of {} early, for the memory another pool needs, failed: {}", this,
                    e.toString());
        } finally {
            emitLock.unlock();
        }
    }

    /** Broadcast data and per-subpartition data never share a region: writes a broadcast region that is open. */
    @GuardedBy("emitLock")
    private void leaveBroadcastRegion() throws IOException {
        if (broadcastRegion) {
            spillRegion();
            broadcastRegion = false;
        }
    }

    @GuardedBy("emitLock")
    private void enterBroadcastRegion() throws IOException {
        if (!broadcastRegion) {
            spillRegion();
            broadcastRegion = true;
        }
    }

    @GuardedBy("emitLock")
    private void writeRecord(ByteBuffer record, int target) throws IOException {
        int start = record.position();
        try {
            lengthPrefix.clear();
            RecordFraming.putLength(lengthPrefix, record.remaining());
            lengthPrefix.flip();
            write(lengthPrefix, target);
            write(record, target);
        } finally {
            record.position(start);
        }
    }

    /** Copies {@code source}'s remaining bytes into {@code target}'s buffers, writing regions as the pool runs dry. */
    @GuardedBy("emitLock")
    private void write(ByteBuffer source, int target) throws IOException {
        while (source.hasRemaining()) {
            Buffer buffer = current[target];
            if (buffer == null) {
                buffer = newBuffer();
                current[target] = buffer;
            }
            int size = buffer.getSize();
            int chunk = Math.min(source.remaining(), buffer.getMaxCapacity() - size);
            buffer.getMemorySegment().put(size, source, chunk);
            buffer.setSize(size + chunk);
            if (size + chunk == buffer.getMaxCapacity()) {
                closeCurrent(target);
            }
        }
    }

    /** Moves the buffer being filled of {@code target} to the open region's list. */
    @GuardedBy("emitLock")
    private void closeCurrent(int target) {
        Buffer buffer = current[target];
        if (buffer != null) {
            current[target] = null;
            if (buffer.getSize() > 0) {
                countBuffer(buffer.getSize());
                regionBuffers[target].add(buffer);
            } else {
                buffer.recycleBuffer();
            }
        }
    }

    @GuardedBy("emitLock")
    private Buffer newBuffer() throws IOException {
        Buffer buffer;
        try {
            buffer = bufferPool.requestBuffer();
        } catch (BufferPoolDestroyedException e) {
            // The environment closed on another thread after this emit checked the state.
            throw released();
        }
        if (buffer != null) {
            return buffer;
        }
        // Every buffer holds data: write them out as one region; they come back to the pool.
        spillRegion();
        long start = counters.beginWait();
        try {
            return bufferPool.requestBufferBlocking();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException ex = new InterruptedIOException("interrupted while waiting for a buffer of "
                    + "blocking partition " + partitionId);
            ex.initCause(e);
            throw ex;
        } catch (BufferPoolDestroyedException e) {
            throw released();
        } finally {
            counters.endWait(start);
        }
    }

    /** Writes the open region (if it holds anything) and recycles its buffers. */
    @GuardedBy("emitLock")
    private void spillRegion() throws IOException {
        boolean empty = true;
        for (int i = 0; i <= subpartitions; i++) {
            closeCurrent(i);
            empty &= regionBuffers[i].isEmpty();
        }
        if (empty) {
            return;
        }
        try {
            fileWriter.writeRegion(regionBuffers, broadcastRegion ? regionBuffers[subpartitions] : null);
        } catch (IOException e) {
            throw failWrite(e);
        }
        recycleRegionBuffers();
    }

    @GuardedBy("emitLock")
    private void recycleRegionBuffers() {
        for (int i = 0; i <= subpartitions; i++) {
            if (current[i] != null) {
                current[i].recycleBuffer();
                current[i] = null;
            }
            List<Buffer> buffers = regionBuffers[i];
            for (int b = 0, n = buffers.size(); b < n; b++) {
                buffers.get(b).recycleBuffer();
            }
            buffers.clear();
        }
    }

    /** Fails the partition after a write error: files deleted, memory back; returns the error to throw. */
    private ShuffleException failWrite(IOException e) {
        ShuffleException failure = writeFailure(e);
        LOG.warn("{}", failure.getMessage());
        release(failure);
        return failure;
    }

    private ShuffleException writeFailure(IOException e) {
        return new ShuffleException("cannot write blocking partition " + partitionId + " of " + ownerName
                + " to directory " + directory + ": " + e + "; "
                + FileErrors.explain(e, directory, ShuffleOptions.TMP_DIRS.key()), e);
    }

    @GuardedBy("emitLock")
    private void closeWriterQuietly() {
        if (fileWriter != null) {
            try {
                fileWriter.close();
            } catch (IOException e) {
                LOG.debug("Closing the files of blocking partition {} failed: {}", partitionId, e.toString());
            }
        }
    }

    /** Deletes both files. Under stateLock (or before the partition is shared). */
    @GuardedBy("stateLock")
    private void deleteFiles() {
        if (filesDeleted || directory == null) {
            return;
        }
        filesDeleted = true;
        FileChannelManager.deleteRecursively(PartitionFiles.dataFile(directory, partitionId));
        FileChannelManager.deleteRecursively(PartitionFiles.indexFile(directory, partitionId));
    }

    @Override
    public String toString() {
        return "blocking partition " + partitionId + " of " + ownerName + " (" + subpartitions + " subpartitions, "
                + state + ")";
    }
}
