package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

/**
 * Client to server: the consumer channel {@code receiverId} wants buffers of at most {@code bufferSize} bytes from
 * now on (buffer debloating); the server's reader hands the size to its subpartition, whose producer cuts the next
 * buffers it starts at that size. Sent only when the consumer's size changed; credit is unaffected. Body: buffer
 * size (4), receiver id (16), see {@link ReceiverValueMessage}. Added in protocol version 6. Immutable; any thread.
 *
 * @param bufferSize the wanted size of a buffer in bytes, > 0
 * @param receiverId the input channel that wants it
 */
public record NewBufferSize(int bufferSize, InputChannelId receiverId) implements ReceiverValueMessage {

    static final byte ID = 10;

    static final int BUFFER_SIZE_OFFSET = VALUE_OFFSET;
    static final int BUFFER_SIZE_SIZE = VALUE_SIZE;

    /** Checks the fields. */
    public NewBufferSize {
        ReceiverValueMessage.checkFields(bufferSize, "buffer size", receiverId);
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int value() {
        return bufferSize;
    }

    static NewBufferSize readBody(ByteBuf in) {
        int bufferSize = in.readInt();
        return new NewBufferSize(bufferSize, WireFields.readInputChannelId(in));
    }

    @Override
    public String toString() {
        return "NewBufferSize[" + bufferSize + " bytes for receiver " + receiverId + "]";
    }
}
