package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: "send me subpartition {@code subpartitionIndex} of {@code partitionId}, tag it with
 * {@code receiverId}; I have reserved {@code initialCredit} buffers for it". Body: partition id (16), subpartition
 * index (4), receiver id (16), initial credit (4). Immutable; any thread.
 *
 * @param partitionId       the requested partition
 * @param subpartitionIndex the requested subpartition, >= 0
 * @param receiverId        the requesting input channel
 * @param initialCredit     the buffers the channel reserved for this partition (its exclusive buffers), >= 0
 */
public record PartitionRequest(ResultPartitionId partitionId, int subpartitionIndex, InputChannelId receiverId,
                               int initialCredit) implements NettyMessage {

    static final byte ID = 0;

    static final int PARTITION_ID_OFFSET = 0;
    static final int PARTITION_ID_SIZE = WireFields.ID_LENGTH;
    static final int SUBPARTITION_INDEX_OFFSET = PARTITION_ID_OFFSET + PARTITION_ID_SIZE;
    static final int SUBPARTITION_INDEX_SIZE = Integer.BYTES;
    static final int RECEIVER_ID_OFFSET = SUBPARTITION_INDEX_OFFSET + SUBPARTITION_INDEX_SIZE;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int INITIAL_CREDIT_OFFSET = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;
    static final int INITIAL_CREDIT_SIZE = Integer.BYTES;
    static final int BODY_LENGTH = INITIAL_CREDIT_OFFSET + INITIAL_CREDIT_SIZE;

    /** Checks the fields. */
    public PartitionRequest {
        Objects.requireNonNull(partitionId, "partitionId");
        Objects.requireNonNull(receiverId, "receiverId");
        if (subpartitionIndex < 0) {
            throw new IllegalArgumentException("subpartitionIndex must be >= 0, was " + subpartitionIndex
                    + " (receiver " + receiverId + ")");
        }
        if (initialCredit < 0) {
            throw new IllegalArgumentException("initialCredit must be >= 0, was " + initialCredit
                    + " (receiver " + receiverId + ")");
        }
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int bodyLength() {
        return BODY_LENGTH;
    }

    @Override
    public void writeBody(ByteBuf out) {
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
    public String toString() {
        return "PartitionRequest[partition " + partitionId + ", subpartition " + subpartitionIndex
                + ", receiver " + receiverId + ", initial credit " + initialCredit + "]";
    }
}
