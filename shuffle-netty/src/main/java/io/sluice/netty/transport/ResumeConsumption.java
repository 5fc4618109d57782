package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: the consumer channel {@code receiverId} has processed the blocking event its subpartition sent
 * (see {@link io.sluice.api.ResultPartitionWriter#broadcastBlockingEvent}); the server's reader of that subpartition
 * resumes sending. Credit is unaffected: the channel keeps the credit it announced. Body: receiver id (16).
 * Immutable; any thread.
 */
public final class ResumeConsumption extends NettyMessage {

    /** Chosen away from the low ids so that other additions to the protocol do not collide with it. */
    static final byte ID = 16;

    private final InputChannelId receiverId;

    /** @param receiverId the input channel that resumes */
    public ResumeConsumption(InputChannelId receiverId) {
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

    static ResumeConsumption readBody(ByteBuf in) {
        return new ResumeConsumption(WireFields.readInputChannelId(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResumeConsumption other && receiverId.equals(other.receiverId);
    }

    @Override
    public int hashCode() {
        return receiverId.hashCode();
    }

    @Override
    public String toString() {
        return "ResumeConsumption[receiver " + receiverId + "]";
    }
}
