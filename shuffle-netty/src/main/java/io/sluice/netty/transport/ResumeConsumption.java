package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: the consumer channel {@code receiverId} has processed the blocking event its subpartition sent
 * (see {@link io.sluice.api.ResultPartitionWriter#broadcastBlockingEvent}); the server's reader of that subpartition
 * resumes sending. Credit is unaffected: the channel keeps the credit it announced. Body: receiver id (16), see
 * {@link ReceiverOnlyMessage}. Immutable; any thread.
 *
 * @param receiverId the input channel that resumes
 */
public record ResumeConsumption(InputChannelId receiverId) implements ReceiverOnlyMessage {

    /** Chosen away from the low ids so that other additions to the protocol do not collide with it. */
    static final byte ID = 16;

    /** Checks the field. */
    public ResumeConsumption {
        Objects.requireNonNull(receiverId, "receiverId");
    }

    @Override
    public byte id() {
        return ID;
    }

    static ResumeConsumption readBody(ByteBuf in) {
        return new ResumeConsumption(WireFields.readInputChannelId(in));
    }

    @Override
    public String toString() {
        return "ResumeConsumption[receiver " + receiverId + "]";
    }
}
