package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: the receiver has {@code credit} more buffers for its channel; the server may send that many more
 * data buffers. Body: credit (4), receiver id (16). Immutable; any thread.
 *
 * @param credit     the number of new buffers, > 0
 * @param receiverId the input channel that has them
 */
public record AddCredit(int credit, InputChannelId receiverId) implements NettyMessage {

    static final byte ID = 3;

    static final int CREDIT_OFFSET = 0;
    static final int CREDIT_SIZE = Integer.BYTES;
    static final int RECEIVER_ID_OFFSET = CREDIT_OFFSET + CREDIT_SIZE;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int BODY_LENGTH = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;

    /** Checks the fields. */
    public AddCredit {
        Objects.requireNonNull(receiverId, "receiverId");
        if (credit <= 0) {
            throw new IllegalArgumentException("credit must be > 0, was " + credit + " (receiver " + receiverId + ")");
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
        out.writeInt(credit);
        WireFields.writeId(out, receiverId);
    }

    /** Reads the body, the receiver id through the connection's {@code receiverIds}. */
    static AddCredit readBody(ByteBuf in, InputChannelIdReader receiverIds) {
        int credit = in.readInt();
        return new AddCredit(credit, receiverIds.read(in));
    }

    @Override
    public String toString() {
        return "AddCredit[" + credit + " for receiver " + receiverId + "]";
    }
}
