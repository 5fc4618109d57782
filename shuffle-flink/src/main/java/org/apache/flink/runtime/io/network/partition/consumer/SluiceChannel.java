package org.apache.flink.runtime.io.network.partition.consumer;

import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * The channel object a Sluice gate hands Flink for each of its channels: the one class of shuffle-flink that lives
 * in a Flink package, because Flink's {@link InputChannel} and {@link RecoveredInputChannel} can be extended only
 * from here (package-private abstract methods and constructor). shuffle-flink's jar is loaded by the class loader
 * that loads Flink's runtime (Flink's {@code lib/}, or the class path of a MiniCluster), which is what makes this
 * class part of the package at run time.
 *
 * <p>It serves three purposes, and reads no data itself: every read, resume, acknowledgement and event goes through
 * the Sluice gate.
 * <ul>
 *   <li>Identity: Flink's streaming runtime asks a gate's channels for their {@code InputChannelInfo}, the
 *   subpartitions they consume (the watermark valve) and whether they have an error; {@link InputChannel} answers
 *   those from the fields this constructor sets.</li>
 *   <li>Recovery of unaligned checkpoints: Flink's channel-state reader restores input data only into channels that
 *   are {@link RecoveredInputChannel}s, asking each for a buffer ({@link #requestBufferBlocking()}) and handing it
 *   back filled ({@link #onRecoveredStateBuffer}); this class passes both to the Sluice gate's {@link Target}.</li>
 *   <li>Checkpoint hooks: Flink's task wraps every gate in its {@code InputGateWithMetrics}, which does not pass
 *   {@code checkpointStarted}, {@code checkpointStopped} or {@code convertToPriorityEvent} on to the gate: it calls
 *   them on each of the gate's channels instead. This class passes them to the {@link Target}, once per
 *   channel.</li>
 * </ul>
 *
 * <p>Flink versions: the constructor and the overridden methods are the same in Flink 2.2 and 2.3; the abstract
 * {@code toInputChannelInternal} differs (2.3 added a parameter), so both forms are declared, and neither is ever
 * called (only Flink's own gate converts recovered channels). The channel is built on a stand-in
 * {@link SingleInputGate} that holds no memory and is never set up.
 *
 * <p>Immutable after construction; recovery calls come from Flink's channel-state thread, identity calls from any.
 */
public final class SluiceChannel extends RecoveredInputChannel {

    /** The Sluice gate this channel belongs to: where recovered input and checkpoint calls go. */
    public interface Target {

        /**
         * A buffer for Flink's channel-state reader to fill; may wait until the task consumed earlier ones.
         *
         * @return an empty buffer, owned by the caller until it hands it to {@link #onRecovered} or recycles it
         */
        Buffer requestBuffer() throws IOException, InterruptedException;

        /**
         * A recovered buffer or event for {@code channelIndex}; ownership passes to the target.
         *
         * @param channelIndex the Flink channel index
         * @param buffer       the recovered data or event
         */
        void onRecovered(int channelIndex, Buffer buffer);

        /**
         * Flink started an unaligned checkpoint on the channel's gate; called for each of the gate's channels.
         *
         * @param barrier the checkpoint's barrier
         */
        void checkpointStarted(CheckpointBarrier barrier) throws CheckpointException;

        /**
         * The checkpoint ended on the task (completed or aborted); called for each of the gate's channels.
         *
         * @param checkpointId the checkpoint
         */
        void checkpointStopped(long checkpointId);

        /**
         * Flink asks to turn an announced barrier into a priority event.
         *
         * @param channelIndex   the Flink channel index
         * @param sequenceNumber the announced barrier's sequence number
         */
        void convertToPriorityEvent(int channelIndex, int sequenceNumber) throws IOException;
    }

    private final Target target;

    /**
     * @param gate          the stand-in gate (no memory, never set up)
     * @param channelIndex  the channel's index in its gate
     * @param partitionId   the partition the channel reads
     * @param subpartitions the subpartitions the channel reads
     * @param target        where recovered buffers go
     */
    public SluiceChannel(SingleInputGate gate, int channelIndex, ResultPartitionID partitionId,
                         ResultSubpartitionIndexSet subpartitions, Target target) {
        super(gate, channelIndex, partitionId, subpartitions, 0, 0, new SimpleCounter(), new SimpleCounter(), 0);
        this.target = target;
    }

    @Override
    public Buffer requestBufferBlocking() throws InterruptedException, IOException {
        return target.requestBuffer();
    }

    @Override
    public void onRecoveredStateBuffer(Buffer buffer) {
        target.onRecovered(getChannelIndex(), buffer);
    }

    @Override
    public void checkpointStarted(CheckpointBarrier barrier) throws CheckpointException {
        target.checkpointStarted(barrier);
    }

    @Override
    public void checkpointStopped(long checkpointId) {
        target.checkpointStopped(checkpointId);
    }

    @Override
    public void convertToPriorityEvent(int sequenceNumber) throws IOException {
        target.convertToPriorityEvent(getChannelIndex(), sequenceNumber);
    }

    /** The gate's own {@code finishReadRecoveredState()} ends recovery; Flink's reader calls that one. */
    @Override
    public void finishReadRecoveredState() {
    }

    /** Flink 2.3's form. Only Flink's own gate converts recovered channels; a Sluice gate never asks. */
    @SuppressWarnings("MissingOverride")
    protected InputChannel toInputChannelInternal(ArrayDeque<Buffer> remainingBuffers) {
        throw notConverted();
    }

    /** Flink 2.2's form. Only Flink's own gate converts recovered channels; a Sluice gate never asks. */
    @SuppressWarnings("MissingOverride")
    protected InputChannel toInputChannelInternal() {
        throw notConverted();
    }

    private IllegalStateException notConverted() {
        return new IllegalStateException("channel " + getChannelIndex() + " of a Sluice gate reads through Sluice; "
                + "it is never converted into one of Flink's channels");
    }

    @Override
    public String toString() {
        return "SluiceChannel[" + getChannelInfo() + ", " + getPartitionId() + "]";
    }
}
