package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: stop sending to {@code receiverId} (its channel was released, or it received data it cannot
 * use); the server releases that reader. Body: receiver id (16). Immutable; any thread.
 */
public final class CancelPartitionRequest extends NettyMessage {

    static final byte ID = 4;

    private final InputChannelId receiverId;

    /** @param receiverId the input channel whose request is cancelled */
    public CancelPartitionRequest(InputChannelId receiverId) {
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
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
        return WireFields.ID_LENGTH;
    }

    @Override
    void writeBody(ByteBuf out) {
        WireFields.writeId(out, receiverId);
    }

    static CancelPartitionRequest readBody(ByteBuf in) {
        return new CancelPartitionRequest(WireFields.readInputChannelId(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CancelPartitionRequest other && receiverId.equals(other.receiverId);
    }

    @Override
    public int hashCode() {
        return receiverId.hashCode();
    }

    @Override
    public String toString() {
        return "CancelPartitionRequest[receiver " + receiverId + "]";
    }
}
