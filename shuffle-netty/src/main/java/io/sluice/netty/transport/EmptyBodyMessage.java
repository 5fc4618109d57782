package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * A message that is its id alone: a frame of {@link Frame#HEADER_LENGTH} bytes and no body. Its records carry no
 * fields, so every instance of one equals every other; any thread.
 */
public sealed interface EmptyBodyMessage extends NettyMessage permits CloseRequest, Heartbeat {

    /** The body length of every empty-body message. */
    int BODY_LENGTH = 0;

    @Override
    default int bodyLength() {
        return BODY_LENGTH;
    }

    @Override
    default void writeBody(ByteBuf out) {
        // empty body
    }
}
