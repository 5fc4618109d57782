package io.sluice.netty.gate;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;

import java.nio.ByteBuffer;

/**
 * A channel whose producer cannot be reached from this environment, for example a remote producer of an
 * environment created with {@code localCommunicationOnly}. Its gate's {@code setup()} fails with the reason.
 *
 * <p>Immutable; any thread.
 */
public final class UnreachableInputChannel extends InputChannel {

    private final String reason;

    /**
     * @param reason why the producer cannot be reached and what to change; part of the setup failure's message
     */
    public UnreachableInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId,
                                   int subpartitionIndex, String reason) {
        super(gate, channelIndex, partitionId, subpartitionIndex);
        this.reason = reason;
    }

    @Override
    void setup() throws ShuffleException {
        throw new ShuffleException("channel " + channelIndex + " of " + gate.ownerName() + " cannot read partition "
                + partitionId + ": " + reason);
    }

    @Override
    void requestSubpartition() {
        throw new IllegalStateException("unreachable channel " + channelIndex + " was never set up");
    }

    @Override
    BufferAndAvailability getNextBuffer() {
        return null;
    }

    /** Its producer cannot be reached: the event cannot be sent (the gate's setup failed for the same reason). */
    @Override
    void sendTaskEvent(ByteBuffer event) throws ShuffleException {
        throw new ShuffleException(describe() + " cannot send a task event: " + reason);
    }

    @Override
    void resumeConsumption() {
        // Never set up, so never blocked: nothing to resume.
    }

    @Override
    void releaseAllResources() {
    }

    @Override
    boolean isReleased() {
        return true;
    }
}
