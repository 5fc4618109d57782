package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: stop sending to {@code receiverId} (its channel was released, or it received data it cannot
 * use); the server releases that reader. Body: receiver id (16). Immutable; any thread.
 *
 * @param receiverId the input channel whose request is cancelled
 */
public record CancelPartitionRequest(InputChannelId receiverId) implements NettyMessage {

    static final byte ID = 4;

    static final int RECEIVER_ID_OFFSET = 0;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int BODY_LENGTH = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;

    /** Checks the field. */
    public CancelPartitionRequest {
        Objects.requireNonNull(receiverId, "receiverId");
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
        WireFields.writeId(out, receiverId);
    }

    static CancelPartitionRequest readBody(ByteBuf in) {
        return new CancelPartitionRequest(WireFields.readInputChannelId(in));
    }

    @Override
    public String toString() {
        return "CancelPartitionRequest[receiver " + receiverId + "]";
    }
}
