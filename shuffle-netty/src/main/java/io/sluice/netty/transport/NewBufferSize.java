package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Client to server: the consumer channel {@code receiverId} wants buffers of at most {@code bufferSize} bytes from
 * now on (buffer debloating); the server's reader hands the size to its subpartition, whose producer cuts the next
 * buffers it starts at that size. Sent only when the consumer's size changed; credit is unaffected. Body: buffer
 * size (4), receiver id (16). Added in protocol version 6. Immutable; any thread.
 *
 * @param bufferSize the wanted size of a buffer in bytes, > 0
 * @param receiverId the input channel that wants it
 */
public record NewBufferSize(int bufferSize, InputChannelId receiverId) implements NettyMessage {

    static final byte ID = 10;

    static final int BUFFER_SIZE_OFFSET = 0;
    static final int BUFFER_SIZE_SIZE = Integer.BYTES;
    static final int RECEIVER_ID_OFFSET = BUFFER_SIZE_OFFSET + BUFFER_SIZE_SIZE;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int BODY_LENGTH = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;

    /** Checks the fields. */
    public NewBufferSize {
        Objects.requireNonNull(receiverId, "receiverId");
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("buffer size must be > 0, was " + bufferSize + " (receiver "
                    + receiverId + ")");
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
        out.writeInt(bufferSize);
        WireFields.writeId(out, receiverId);
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
