package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * A client-to-server message whose body is one positive int about one consumer channel, then that channel's
 * receiver id ({@link AddCredit}: the new credit; {@link NewBufferSize}: the buffer size it wants). Body: value (4),
 * receiver id (16). Its records differ only in their wire id and the meaning of the value; any thread.
 */
public sealed interface ReceiverValueMessage extends NettyMessage permits AddCredit, NewBufferSize {

    /** Offset of the value in the body. */
    int VALUE_OFFSET = 0;
    /** Size of the value. */
    int VALUE_SIZE = Integer.BYTES;
    /** Offset of the receiver id in the body. */
    int RECEIVER_ID_OFFSET = VALUE_OFFSET + VALUE_SIZE;
    /** Size of the receiver id. */
    int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    /** The body length of every such message. */
    int BODY_LENGTH = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;

    /** @return the value the message carries, > 0 */
    int value();

    /** @return the input channel the message is about */
    InputChannelId receiverId();

    @Override
    default int bodyLength() {
        return BODY_LENGTH;
    }

    @Override
    default void writeBody(ByteBuf out) {
        out.writeInt(value());
        WireFields.writeId(out, receiverId());
    }

    /**
     * Checks a message's fields.
     *
     * @throws IllegalArgumentException when {@code value} is not positive, naming {@code what} and the receiver
     */
    static void checkFields(int value, String what, InputChannelId receiverId) {
        Objects.requireNonNull(receiverId, "receiverId");
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be > 0, was " + value + " (receiver " + receiverId + ")");
        }
    }
}
