package io.sluice.flink;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.TaskEventPublisher;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EndOfData;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.BufferBuilder;
import org.apache.flink.runtime.io.network.buffer.BufferConsumer;
import org.apache.flink.runtime.io.network.buffer.FreeingBufferRecycler;
import org.apache.flink.runtime.io.network.metrics.ResultPartitionBytesCounter;
import org.apache.flink.runtime.io.network.partition.BufferAvailabilityListener;
import org.apache.flink.runtime.io.network.partition.ChannelStateHolder;
import org.apache.flink.runtime.io.network.partition.CheckpointedResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.apache.flink.runtime.io.network.partition.consumer.EndOfOutputChannelStateEvent;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Flink's {@link ResultPartitionWriter} over a Sluice {@link io.sluice.api.ResultPartitionWriter}.
 *
 * <p>Records: Flink hands each record already framed (a 4-byte big-endian length, then the bytes), which is exactly
 * Sluice's framing; the writer skips Flink's prefix and lets Sluice frame it again, so a consumer's buffers hold the
 * byte stream Flink's record deserializer expects. Events are serialized with Flink's event serializer and sent as
 * Sluice events (priority events as Sluice priority events, which overtake queued data); in a pipelined partition
 * those Flink marks as blocking upstream (aligned checkpoint barriers, end of channel state) go as Sluice blocking
 * events, so the subpartition sends nothing after them until the consumer resumes it. A blocking partition keeps
 * every event in order and blocks nothing (its consumers read after the producer finished). {@link #finish()}
 * sends Flink's {@link EndOfPartitionEvent} before Sluice's own end of partition.
 *
 * <p>Unaligned checkpoints: a priority barrier overtakes the data queued in each subpartition, and the overtaken
 * buffers (Flink's buffers over the same bytes; Sluice's framing is Flink's) go to Flink's channel-state writer with
 * the checkpoint. On a restore, Flink's channel-state reader hands the persisted output back
 * ({@link CheckpointedResultPartition}): it is queued ahead of anything the task emits, followed by Flink's end of
 * recovered output, a blocking event its consumer resumes after. A checkpoint that starts aligned and may time out
 * into an unaligned one ({@code execution.checkpointing.aligned-checkpoint-timeout}) sends its barrier as an aligned
 * one whose delivery Sluice tracks ({@link TimeoutableBarrierOutput}); if it is still queued when the checkpoint's
 * alignment times out here, it is replaced by the unaligned barrier ahead of the data before it, and that data goes
 * to the channel-state writer, as Flink's own partitions do.
 *
 * <p>Backpressure: {@link #getAvailableFuture()} is Sluice's {@code wakeUpFuture()}: when it is done, a buffer is
 * free and an emit does not block Flink's mailbox thread; a record larger than that buffer continues on Sluice's
 * overdraft buffers ({@link #setMaxOverdraftBuffersPerGate}), as on Flink's own partitions.
 *
 * <p>Threads: emit, broadcast, finish and the end-of-data calls come from the task thread; {@link #flushAll()} also
 * from Flink's output flusher; acknowledgements arrive on a Sluice transport or consumer thread and are completed
 * on Flink's I/O executor, never on a Sluice thread; {@link #close()}, {@link #release} and {@link #fail} from any
 * thread. Metric updates are serialized by {@code this}.
 */
public final class SluiceResultPartitionWriter
        implements ResultPartitionWriter, ChannelStateHolder, CheckpointedResultPartition {

    private static final Logger LOG = LoggerFactory.getLogger(SluiceResultPartitionWriter.class);

    /** Length of the record prefix Flink's record serializer writes. */
    private static final int FLINK_LENGTH_PREFIX = Integer.BYTES;

    private final io.sluice.api.ResultPartitionWriter sluice;
    private final ResultPartitionID partitionId;
    /** Each subpartition as Flink's channel state names it: this partition's index in its task, and its own. */
    private final ResultSubpartitionInfo[] subpartitionInfos;
    /** Size of the buffers Flink's channel-state reader fills with recovered output: a segment. */
    private final int recoveryBufferSize;
    private final String ownerName;
    private final int numberOfSubpartitions;
    private final int numTargetKeyGroups;
    private final boolean blocking;
    private final Executor callbackExecutor;
    private final TaskEventPublisher taskEventPublisher;

    /**
     * Bytes per subpartition, records and events with their framing, for Flink's adaptive batch scheduler (it reads
     * them from the task's I/O metrics when the task finishes to size and balance the consumers). Task thread.
     */
    private final ResultPartitionBytesCounter partitionBytes;
    /**
     * Record bytes per subpartition not yet added to {@link #partitionBytes}; task thread only, published at
     * {@link #finish()}, before Flink reads the counter. A plain array add per record instead of the counter's list
     * lookup and interface call, which is about a tenth of the producer's Sluice time in the keyed job that
     * {@code io.sluice.flink.bench.FlinkShuffleBenchmark} (a test-scope tool of this module) runs.
     */
    private final long[] unpublishedRecordBytes;
    private final CompletableFuture<Void> allDataProcessed = new CompletableFuture<>();
    @GuardedBy("acknowledgedSubpartitions")
    private final BitSet acknowledgedSubpartitions;

    private volatile boolean endOfDataNotified;
    private volatile boolean finished;
    private volatile boolean released;
    /** Flink's channel-state writer: a real one when unaligned checkpoints are enabled. Set before the task emits. */
    private volatile ChannelStateWriter channelStateWriter = ChannelStateWriter.NO_OP;
    /**
     * The output of the last aligned barrier that may time out. Written by the task thread; read by a release from
     * any thread, which fails what is not settled.
     */
    private volatile TimeoutableBarrierOutput timeoutableBarrier;

    @GuardedBy("this")
    private Counter numBytesOut;
    @GuardedBy("this")
    private Counter numBuffersOut;
    @GuardedBy("this")
    private long reportedBytes;
    @GuardedBy("this")
    private long reportedBuffers;

    SluiceResultPartitionWriter(io.sluice.api.ResultPartitionWriter sluice, ResultPartitionID partitionId,
                                int partitionIndex, String ownerName, int numTargetKeyGroups, boolean blocking,
                                int recoveryBufferSize, Executor callbackExecutor,
                                TaskEventPublisher taskEventPublisher) {
        this.sluice = Objects.requireNonNull(sluice, "sluice");
        this.partitionId = Objects.requireNonNull(partitionId, "partitionId");
        this.ownerName = ownerName;
        this.numberOfSubpartitions = sluice.numberOfSubpartitions();
        this.numTargetKeyGroups = numTargetKeyGroups;
        this.blocking = blocking;
        this.callbackExecutor = callbackExecutor;
        this.taskEventPublisher = taskEventPublisher;
        this.acknowledgedSubpartitions = new BitSet(numberOfSubpartitions);
        this.partitionBytes = new ResultPartitionBytesCounter(numberOfSubpartitions);
        this.unpublishedRecordBytes = new long[numberOfSubpartitions];
        this.subpartitionInfos = new ResultSubpartitionInfo[numberOfSubpartitions];
        for (int i = 0; i < numberOfSubpartitions; i++) {
            subpartitionInfos[i] = new ResultSubpartitionInfo(partitionIndex, i);
        }
        this.recoveryBufferSize = recoveryBufferSize;
        if (blocking) {
            // Its consumers start after this task finished: nobody will acknowledge, and nothing needs to be.
            allDataProcessed.complete(null);
        }
    }

    /** @return the Sluice partition under this writer */
    io.sluice.api.ResultPartitionWriter sluiceWriter() {
        return sluice;
    }

    @Override
    public void setup() throws IOException {
        sluice.onTaskEvent(this::onConsumerSignal);
        sluice.setup();
    }

    @Override
    public ResultPartitionID getPartitionId() {
        return partitionId;
    }

    @Override
    public int getNumberOfSubpartitions() {
        return numberOfSubpartitions;
    }

    @Override
    public int getNumTargetKeyGroups() {
        return numTargetKeyGroups;
    }

    /**
     * Flink's {@code taskmanager.network.memory.max-overdraft-buffers-per-gate} (default 5) becomes the Sluice
     * partition's overdraft allowance: a record spanning several buffers, started when {@link #getAvailableFuture()}
     * said available, completes on buffers beyond the partition's memory instead of blocking the mailbox thread.
     */
    @Override
    public void setMaxOverdraftBuffersPerGate(int maxOverdraftBuffersPerGate) {
        sluice.setMaxOverdraftBuffers(maxOverdraftBuffersPerGate);
    }

    @Override
    public void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException {
        // Flink's buffer is not reused after this call; moving its position skips Flink's length prefix.
        record.position(record.position() + FLINK_LENGTH_PREFIX);
        sluice.emitRecord(record, targetSubpartition);
        unpublishedRecordBytes[targetSubpartition] += FLINK_LENGTH_PREFIX + record.remaining();
    }

    @Override
    public void broadcastRecord(ByteBuffer record) throws IOException {
        record.position(record.position() + FLINK_LENGTH_PREFIX);
        sluice.broadcastRecord(record);
        int bytes = FLINK_LENGTH_PREFIX + record.remaining();
        for (int i = 0; i < unpublishedRecordBytes.length; i++) {
            unpublishedRecordBytes[i] += bytes;
        }
    }

    @Override
    public void broadcastEvent(AbstractEvent event, boolean isPriorityEvent) throws IOException {
        ByteBuffer serialized = EventSerializer.toSerializedEvent(event);
        partitionBytes.incAll(serialized.remaining());
        if (isPriorityEvent && event instanceof CheckpointBarrier barrier) {
            broadcastUnalignedBarrier(serialized, barrier.getId());
            return;
        }
        if (!isPriorityEvent && !blocking && event instanceof CheckpointBarrier barrier
                && barrier.getCheckpointOptions().isTimeoutable()) {
            broadcastTimeoutableBarrier(serialized, barrier.getId());
            return;
        }
        if (!isPriorityEvent && !blocking && Buffer.DataType.getDataType(event, false).isBlockingUpstream()) {
            sluice.broadcastBlockingEvent(serialized);
        } else {
            sluice.broadcastEvent(serialized, isPriorityEvent);
        }
    }

    /**
     * An unaligned barrier: sent ahead of the data queued in every subpartition, and that data, per subpartition in
     * order, goes to Flink's channel-state writer for the checkpoint (which recycles each buffer once written).
     * Task thread, before Flink finishes the checkpoint's output.
     */
    private void broadcastUnalignedBarrier(ByteBuffer barrier, long checkpointId) throws IOException {
        List<List<Buffer>> overtaken = new ArrayList<>(numberOfSubpartitions);
        for (int i = 0; i < numberOfSubpartitions; i++) {
            overtaken.add(new ArrayList<>());
        }
        try {
            sluice.broadcastPriorityEvent(barrier,
                    (subpartition, buffer) -> overtaken.get(subpartition).add(SluiceBuffers.wrap(buffer)));
        } catch (IOException | RuntimeException e) {
            recycleAll(overtaken);
            throw e;
        }
        ChannelStateWriter writer = channelStateWriter;
        try {
            for (int i = 0; i < numberOfSubpartitions; i++) {
                List<Buffer> buffers = overtaken.get(i);
                if (!buffers.isEmpty()) {
                    // Ownership of the buffers passes to the writer, which recycles them, also when it fails.
                    overtaken.set(i, List.of());
                    writer.addOutputData(checkpointId, subpartitionInfos[i],
                            ChannelStateWriter.SEQUENCE_NUMBER_UNKNOWN, buffers.toArray(new Buffer[0]));
                }
            }
        } catch (RuntimeException e) {
            recycleAll(overtaken);
            throw e;
        }
    }

    private static void recycleAll(List<List<Buffer>> buffers) {
        for (List<Buffer> list : buffers) {
            for (Buffer buffer : list) {
                buffer.recycleBuffer();
            }
        }
    }

    /**
     * An aligned barrier that may time out: a blocking event whose delivery Sluice tracks, so that Flink's
     * channel-state writer learns per subpartition that it went out in its place (nothing overtaken) or, after
     * {@link #alignedBarrierTimeout}, what it overtook. A previous such barrier still unsettled fails: Flink runs one
     * such checkpoint at a time, as its own partitions insist. Task thread.
     */
    private void broadcastTimeoutableBarrier(ByteBuffer barrier, long checkpointId) throws IOException {
        TimeoutableBarrierOutput previous = timeoutableBarrier;
        if (previous != null && !previous.isSettled()) {
            previous.fail(new IllegalStateException("the aligned barrier of checkpoint " + previous.checkpointId()
                    + " of " + ownerName + " was still queued in partition " + partitionId + " when the barrier of "
                    + "checkpoint " + checkpointId + " came; Flink runs one unaligned checkpoint at a time"));
        }
        TimeoutableBarrierOutput output = new TimeoutableBarrierOutput(checkpointId, ownerName, channelStateWriter,
                subpartitionInfos);
        timeoutableBarrier = output;
        try {
            sluice.broadcastAnnouncedBlockingEvent(barrier, output);
        } catch (IOException | RuntimeException e) {
            output.fail(e);
            throw e;
        }
    }

    /**
     * The alignment of {@code checkpointId} timed out in this task: where its aligned barrier is still queued, it is
     * replaced by the unaligned barrier ahead of the data before it, and that data (per subpartition, in order) goes
     * to Flink's channel-state writer with the checkpoint; where it went out already, nothing was overtaken. Task
     * thread (Flink's alignment timer runs in the mailbox).
     */
    @Override
    public void alignedBarrierTimeout(long checkpointId) throws IOException {
        TimeoutableBarrierOutput output = timeoutableBarrier;
        if (output == null || output.checkpointId() != checkpointId || output.isSettled()) {
            return;
        }
        List<List<Buffer>> overtaken = new ArrayList<>(numberOfSubpartitions);
        for (int i = 0; i < numberOfSubpartitions; i++) {
            overtaken.add(new ArrayList<>());
        }
        try {
            sluice.prioritizeQueuedEvent(payload -> unalignedIfBarrierOf(payload, checkpointId),
                    (subpartition, buffer) -> overtaken.get(subpartition).add(SluiceBuffers.wrap(buffer)));
        } catch (IOException | RuntimeException e) {
            recycleAll(overtaken);
            output.fail(e);
            throw e;
        }
        if (LOG.isDebugEnabled()) {
            int buffers = 0;
            for (List<Buffer> list : overtaken) {
                buffers += list.size();
            }
            LOG.debug("{}: the aligned barrier of checkpoint {} timed out in partition {}; it overtook {} buffers",
                    ownerName, checkpointId, partitionId, buffers);
        }
        output.timedOut(overtaken);
    }

    /** The unaligned form of {@code payload} when it is the aligned barrier of {@code checkpointId}, else null. */
    private ByteBuffer unalignedIfBarrierOf(ByteBuffer payload, long checkpointId) {
        AbstractEvent event;
        try {
            event = EventSerializer.fromSerializedEvent(payload.duplicate(), getClass().getClassLoader());
        } catch (IOException e) {
            throw new UncheckedIOException("partition " + partitionId + " of " + ownerName
                    + " holds an event Flink cannot read", e);
        }
        if (event instanceof CheckpointBarrier barrier && barrier.getId() == checkpointId
                && barrier.getCheckpointOptions().isTimeoutable()) {
            try {
                return EventSerializer.toSerializedEvent(barrier.asUnaligned());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return null;
    }

    /**
     * An aborted checkpoint's aligned barrier, if still queued, stays where it is (its consumers drop it); the
     * channel-state writer is told the checkpoint's output will not come. Unaligned barriers handed their data over
     * when they were broadcast, so the partition holds nothing else of an aborted checkpoint.
     */
    @Override
    public void abortCheckpoint(long checkpointId, CheckpointException cause) {
        TimeoutableBarrierOutput output = timeoutableBarrier;
        if (output != null && output.checkpointId() == checkpointId) {
            output.fail(cause);
        }
    }

    /** Fails the output of an aligned barrier not settled yet: the partition will send nothing more. */
    private void failTimeoutableBarrier(String why) {
        TimeoutableBarrierOutput output = timeoutableBarrier;
        if (output != null) {
            output.fail(new IOException("partition " + partitionId + " of " + ownerName + " was " + why
                    + " before the aligned barrier of checkpoint " + output.checkpointId() + " was settled"));
        }
    }

    @Override
    public void notifyEndOfData(StopMode mode) throws IOException {
        if (!endOfDataNotified) {
            endOfDataNotified = true;
            broadcastEvent(new EndOfData(mode), false);
        }
    }

    /**
     * Completes once the consumer of every subpartition acknowledged that it processed all records; for a blocking
     * partition at once, as Flink's own blocking partitions do (its consumers run after this task finished).
     */
    @Override
    public CompletableFuture<Void> getAllDataProcessedFuture() {
        return allDataProcessed;
    }

    @Override
    public synchronized void setMetricGroup(TaskIOMetricGroup metrics) {
        numBytesOut = metrics.getNumBytesOutCounter();
        numBuffersOut = metrics.getNumBuffersOutCounter();
        metrics.registerResultPartitionBytesCounter(partitionId.getPartitionId(), partitionBytes);
        updateMetrics();
    }

    /** Flink reads its own partitions through its own partition manager; Sluice partitions are read by Sluice. */
    @Override
    public ResultSubpartitionView createSubpartitionView(ResultSubpartitionIndexSet indexSet,
                                                         BufferAvailabilityListener availabilityListener) {
        throw new IllegalStateException("partition " + partitionId + " of " + ownerName + " lives in Sluice; it is "
                + "read through Sluice's input gates, not Flink's partition manager");
    }

    @Override
    public void flushAll() {
        sluice.flushAll();
        updateMetrics();
    }

    @Override
    public void flush(int subpartitionIndex) {
        sluice.flush(subpartitionIndex);
    }

    @Override
    public void fail(Throwable throwable) {
        sluice.fail(throwable != null ? throwable
                : new IOException("the producer " + ownerName + " of partition " + partitionId + " failed"));
    }

    @Override
    public void finish() throws IOException {
        broadcastEvent(EndOfPartitionEvent.INSTANCE, false);
        sluice.finish();
        finished = true;
        publishRecordBytes();
        updateMetrics();
    }

    /** Adds the record bytes counted since the last call to Flink's per-subpartition counter. Task thread. */
    private void publishRecordBytes() {
        for (int i = 0; i < unpublishedRecordBytes.length; i++) {
            if (unpublishedRecordBytes[i] != 0) {
                partitionBytes.inc(i, unpublishedRecordBytes[i]);
                unpublishedRecordBytes[i] = 0;
            }
        }
    }

    /** Flink's per-subpartition byte counter (records and events with their framing), complete after finish(). */
    ResultPartitionBytesCounter partitionBytes() {
        return partitionBytes;
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    @Override
    public void release(Throwable cause) {
        released = true;
        failTimeoutableBarrier("released");
        if (cause != null) {
            sluice.fail(cause);
        }
        sluice.close();
    }

    @Override
    public boolean isReleased() {
        return released;
    }

    @Override
    public void close() {
        failTimeoutableBarrier("closed");
        updateMetrics();
        sluice.close();
    }

    /**
     * Sluice's {@link io.sluice.api.ResultPartitionWriter#wakeUpFuture()}: a pending one is completed directly by the
     * thread that recycles the buffer that makes the partition available (a Sluice event loop, a consumer's task
     * thread in this TaskManager), not through Sluice's notification thread as {@code availableFuture()} is. Flink's
     * own partitions complete this future on the recycling thread too, and Flink's continuation on it (the
     * StreamTask's resume of its suspended default action) only enqueues a mail, which is thread-safe and cheap.
     */
    @Override
    public CompletableFuture<?> getAvailableFuture() {
        return sluice.wakeUpFuture();
    }

    /** Flink's channel-state writer, where the output an unaligned barrier overtakes goes. Before the task emits. */
    @Override
    public void setChannelStateWriter(ChannelStateWriter channelStateWriter) {
        this.channelStateWriter = Objects.requireNonNull(channelStateWriter, "channelStateWriter");
    }

    @Override
    public ResultSubpartitionInfo getCheckpointedSubpartitionInfo(int subpartitionIndex) {
        return subpartitionInfos[subpartitionIndex];
    }

    /**
     * A buffer for Flink's channel-state reader to fill with recovered output: one segment of heap memory, freed
     * when {@link #addRecovered} has copied it into the partition. Flink's restore thread.
     */
    @Override
    public BufferBuilder requestBufferBuilderBlocking() {
        return new BufferBuilder(MemorySegmentFactory.allocateUnpooledSegment(recoveryBufferSize),
                FreeingBufferRecycler.INSTANCE);
    }

    /**
     * Recovered output (record bytes, or an event such as Flink's subtask connection descriptor) for one
     * subpartition: queued ahead of anything the task emits. Takes ownership of {@code bufferConsumer} and closes it.
     * Flink's restore thread, before the task emits.
     */
    @Override
    public void addRecovered(int subpartitionIndex, BufferConsumer bufferConsumer) throws IOException {
        try (BufferConsumer consumer = bufferConsumer) {
            Buffer buffer = consumer.build();
            try {
                if (buffer.readableBytes() > 0) {
                    sluice.emitRecovered(subpartitionIndex, buffer.getNioBufferReadable(), !buffer.isBuffer());
                }
            } finally {
                buffer.recycleBuffer();
            }
        }
    }

    /**
     * Every recovered output is queued: unless Flink says the job graph has loops (then nobody waits), each
     * subpartition gets Flink's end of recovered output, a blocking event after which it sends nothing until its
     * consumer, having it from all its channels, resumes it (Flink's own partitions do the same). A blocking
     * partition has no channel state and does nothing.
     */
    @Override
    public void finishReadRecoveredState(boolean notifyAndBlockOnCompletion) throws IOException {
        if (notifyAndBlockOnCompletion && !blocking) {
            broadcastEvent(EndOfOutputChannelStateEvent.INSTANCE, false);
        }
    }

    /** Copies Sluice's byte and buffer counts into Flink's task I/O counters. */
    private synchronized void updateMetrics() {
        if (numBytesOut == null) {
            return;
        }
        long bytes = sluice.bytesOut();
        long buffers = sluice.buffersOut();
        numBytesOut.inc(bytes - reportedBytes);
        numBuffersOut.inc(buffers - reportedBuffers);
        reportedBytes = bytes;
        reportedBuffers = buffers;
    }

    /** A consumer's signal: Sluice transport or consumer thread; must not block. */
    private void onConsumerSignal(ByteBuffer signal) {
        // Never throws into Sluice's transport: a bad signal is this partition's problem, not the connection's.
        try {
            byte kind = ConsumerSignal.kindOf(signal);
            if (kind == ConsumerSignal.ALL_RECORDS_PROCESSED) {
                onAllRecordsProcessed(ConsumerSignal.acknowledgedSubpartition(signal));
            } else if (kind == ConsumerSignal.TASK_EVENT) {
                publishTaskEvent(ConsumerSignal.taskEventPayload(signal));
            } else {
                LOG.warn("{}: unknown consumer signal {} for partition {} ignored", ownerName, kind, partitionId);
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: consumer signal of {} bytes for partition {} not handled", ownerName, signal.remaining(),
                    partitionId, e);
        }
    }

    private void onAllRecordsProcessed(int subpartition) {
        boolean all;
        synchronized (acknowledgedSubpartitions) {
            acknowledgedSubpartitions.set(subpartition);
            all = acknowledgedSubpartitions.cardinality() == numberOfSubpartitions;
        }
        if (all && !allDataProcessed.isDone()) {
            // Flink's continuations run on its I/O executor, never on a Sluice thread.
            try {
                callbackExecutor.execute(() -> allDataProcessed.complete(null));
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: TaskManager shutting down; all-data-processed of {} not reported", ownerName,
                        partitionId);
            }
        }
    }

    private void publishTaskEvent(ByteBuffer serialized) {
        AbstractEvent event;
        try {
            event = EventSerializer.fromSerializedEvent(serialized, getClass().getClassLoader());
        } catch (IOException e) {
            LOG.warn("{}: undecodable task event for partition {} dropped: {}", ownerName, partitionId, e.toString());
            return;
        }
        if (!(event instanceof TaskEvent taskEvent) || !taskEventPublisher.publish(partitionId, taskEvent)) {
            LOG.warn("{}: task event {} for partition {} has no listener; dropped", ownerName, event, partitionId);
        }
    }

    @Override
    public String toString() {
        return "SluiceResultPartitionWriter[" + partitionId + " of " + ownerName + "]";
    }
}
