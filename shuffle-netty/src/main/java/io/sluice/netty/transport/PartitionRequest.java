package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: "send me subpartitions {@code subpartitionIndex..lastSubpartitionIndex} of {@code partitionId},
 * one after the other, tagged with {@code receiverId}; I have reserved {@code initialCredit} buffers for them". Body:
 * partition id (16), subpartition index (4), last subpartition index (4, since protocol version 5), receiver id
 * (16), initial credit (4). Immutable; any thread.
 *
 * @param partitionId           the requested partition
 * @param subpartitionIndex     the first requested subpartition, >= 0
 * @param lastSubpartitionIndex the last requested subpartition, >= {@code subpartitionIndex}
 * @param receiverId            the requesting input channel
 * @param initialCredit         the buffers the channel reserved for this partition (its exclusive buffers), >= 0
 */
public record PartitionRequest(ResultPartitionId partitionId, int subpartitionIndex, int lastSubpartitionIndex,
                               InputChannelId receiverId, int initialCredit) implements NettyMessage {

    static final byte ID = 0;

    static final int PARTITION_ID_OFFSET = 0;
    static final int PARTITION_ID_SIZE = WireFields.ID_LENGTH;
    static final int SUBPARTITION_INDEX_OFFSET = PARTITION_ID_OFFSET + PARTITION_ID_SIZE;
    static final int SUBPARTITION_INDEX_SIZE = Integer.BYTES;
    static final int LAST_SUBPARTITION_INDEX_OFFSET = SUBPARTITION_INDEX_OFFSET + SUBPARTITION_INDEX_SIZE;
    static final int LAST_SUBPARTITION_INDEX_SIZE = Integer.BYTES;
    static final int RECEIVER_ID_OFFSET = LAST_SUBPARTITION_INDEX_OFFSET + LAST_SUBPARTITION_INDEX_SIZE;
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
        if (lastSubpartitionIndex < subpartitionIndex) {
            throw new IllegalArgumentException("lastSubpartitionIndex must be >= subpartitionIndex "
                    + subpartitionIndex + ", was " + lastSubpartitionIndex + " (receiver " + receiverId + ")");
        }
        if (initialCredit < 0) {
            throw new IllegalArgumentException("initialCredit must be >= 0, was " + initialCredit
                    + " (receiver " + receiverId + ")");
        }
    }

    /** A request for the one subpartition {@code subpartitionIndex}. */
    public PartitionRequest(ResultPartitionId partitionId, int subpartitionIndex, InputChannelId receiverId,
                            int initialCredit) {
        this(partitionId, subpartitionIndex, subpartitionIndex, receiverId, initialCredit);
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
        out.writeInt(lastSubpartitionIndex);
        WireFields.writeId(out, receiverId);
        out.writeInt(initialCredit);
    }

    static PartitionRequest readBody(ByteBuf in) {
        ResultPartitionId partitionId = WireFields.readResultPartitionId(in);
        int subpartitionIndex = in.readInt();
        int lastSubpartitionIndex = in.readInt();
        InputChannelId receiverId = WireFields.readInputChannelId(in);
        return new PartitionRequest(partitionId, subpartitionIndex, lastSubpartitionIndex, receiverId, in.readInt());
    }

    @Override
    public String toString() {
        return "PartitionRequest[partition " + partitionId + ", subpartition " + subpartitionIndex
                + (lastSubpartitionIndex == subpartitionIndex ? "" : ".." + lastSubpartitionIndex)
                + ", receiver " + receiverId + ", initial credit " + initialCredit + "]";
    }
}
