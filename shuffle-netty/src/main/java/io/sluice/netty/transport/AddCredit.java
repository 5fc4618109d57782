package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: the receiver has {@code credit} more buffers for its channel; the server may send that many more
 * data buffers. Body: credit (4), receiver id (16). Immutable; any thread.
 */
public final class AddCredit extends NettyMessage {

    static final byte ID = 3;

    private static final int BODY_LENGTH = Integer.BYTES + WireFields.ID_LENGTH;

    private final int credit;
    private final InputChannelId receiverId;

    /**
     * @param credit     the number of new buffers, > 0
     * @param receiverId the input channel that has them
     */
    public AddCredit(int credit, InputChannelId receiverId) {
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
        if (credit <= 0) {
            throw new IllegalArgumentException("credit must be > 0, was " + credit + " (receiver " + receiverId + ")");
        }
        this.credit = credit;
    }

    public int credit() {
        return credit;
    }

    public InputChannelId receiverId() {
        return receiverId;
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
        out.writeInt(credit);
        WireFields.writeId(out, receiverId);
    }

    static AddCredit readBody(ByteBuf in) {
        int credit = in.readInt();
        return new AddCredit(credit, WireFields.readInputChannelId(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddCredit other && credit == other.credit && receiverId.equals(other.receiverId);
    }

    @Override
    public int hashCode() {
        return 31 * credit + receiverId.hashCode();
    }

    @Override
    public String toString() {
        return "AddCredit[" + credit + " for receiver " + receiverId + "]";
    }
}
