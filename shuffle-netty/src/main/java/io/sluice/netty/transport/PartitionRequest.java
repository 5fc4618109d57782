package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: "send me subpartition {@code subpartitionIndex} of {@code partitionId}, tag it with
 * {@code receiverId}; I have reserved {@code initialCredit} buffers for it". Body: partition id (16), subpartition
 * index (4), receiver id (16), initial credit (4). Immutable; any thread.
 */
public final class PartitionRequest extends NettyMessage {

    static final byte ID = 0;

    private static final int BODY_LENGTH = WireFields.ID_LENGTH + Integer.BYTES + WireFields.ID_LENGTH + Integer.BYTES;

    private final ResultPartitionId partitionId;
    private final int subpartitionIndex;
    private final InputChannelId receiverId;
    private final int initialCredit;

    /**
     * @param partitionId       the requested partition
     * @param subpartitionIndex the requested subpartition, >= 0
     * @param receiverId        the requesting input channel
     * @param initialCredit     the buffers the channel reserved for this partition (its exclusive buffers), >= 0
     */
    public PartitionRequest(ResultPartitionId partitionId, int subpartitionIndex, InputChannelId receiverId,
                            int initialCredit) {
        this.partitionId = Objects.requireNonNull(partitionId, "partitionId");
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
        if (subpartitionIndex < 0) {
            throw new IllegalArgumentException("subpartitionIndex must be >= 0, was " + subpartitionIndex
                    + " (receiver " + receiverId + ")");
        }
        if (initialCredit < 0) {
            throw new IllegalArgumentException("initialCredit must be >= 0, was " + initialCredit
                    + " (receiver " + receiverId + ")");
        }
        this.subpartitionIndex = subpartitionIndex;
        this.initialCredit = initialCredit;
    }

    public ResultPartitionId partitionId() {
        return partitionId;
    }

    public int subpartitionIndex() {
        return subpartitionIndex;
    }

    public InputChannelId receiverId() {
        return receiverId;
    }

    public int initialCredit() {
        return initialCredit;
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    int bodyLength() {
        return BODY_LENGTH;
    }

    @Override
    void writeBody(ByteBuf out) {
        WireFields.writeId(out, partitionId);
        out.writeInt(subpartitionIndex);
        WireFields.writeId(out, receiverId);
        out.writeInt(initialCredit);
    }

    static PartitionRequest readBody(ByteBuf in) {
        ResultPartitionId partitionId = WireFields.readResultPartitionId(in);
        int subpartitionIndex = in.readInt();
        InputChannelId receiverId = WireFields.readInputChannelId(in);
        return new PartitionRequest(partitionId, subpartitionIndex, receiverId, in.readInt());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionRequest other
                && partitionId.equals(other.partitionId)
                && subpartitionIndex == other.subpartitionIndex
                && receiverId.equals(other.receiverId)
                && initialCredit == other.initialCredit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionId, subpartitionIndex, receiverId, initialCredit);
    }

    @Override
    public String toString() {
        return "PartitionRequest[partition " + partitionId + ", subpartition " + subpartitionIndex
                + ", receiver " + receiverId + ", initial credit " + initialCredit + "]";
    }
}
