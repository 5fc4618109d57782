package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

/**
 * A client-to-server message whose body is the receiver id alone: it names one consumer channel and nothing else
 * ({@link CancelPartitionRequest}, {@link ResumeConsumption}). Body: receiver id (16). Its records differ only in
 * their wire id and meaning; any thread.
 */
public sealed interface ReceiverOnlyMessage extends NettyMessage permits CancelPartitionRequest, ResumeConsumption {

    /** Offset of the receiver id in the body. */
    int RECEIVER_ID_OFFSET = 0;
    /** Size of the receiver id. */
    int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    /** The body length of every receiver-only message. */
    int BODY_LENGTH = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;

    /** @return the input channel the message is about */
    InputChannelId receiverId();

    @Override
    default int bodyLength() {
        return BODY_LENGTH;
    }

    @Override
    default void writeBody(ByteBuf out) {
        WireFields.writeId(out, receiverId());
    }
}
