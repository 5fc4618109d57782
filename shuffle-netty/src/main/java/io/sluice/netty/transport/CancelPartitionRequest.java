package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: stop sending to {@code receiverId} (its channel was released, or it received data it cannot
 * use); the server releases that reader. Body: receiver id (16), see {@link ReceiverOnlyMessage}. Immutable; any
 * thread.
 *
 * @param receiverId the input channel whose request is cancelled
 */
public record CancelPartitionRequest(InputChannelId receiverId) implements ReceiverOnlyMessage {

    static final byte ID = 4;

    /** Checks the field. */
    public CancelPartitionRequest {
        Objects.requireNonNull(receiverId, "receiverId");
    }

    @Override
    public byte id() {
        return ID;
    }

    static CancelPartitionRequest readBody(ByteBuf in) {
        return new CancelPartitionRequest(WireFields.readInputChannelId(in));
    }

    @Override
    public String toString() {
        return "CancelPartitionRequest[receiver " + receiverId + "]";
    }
}
