package io.sluice.netty.gate;

import java.nio.ByteBuffer;

/**
 * An event of a channel's stream at its place, for {@link ChannelPersister} to ask whether it ends persisting: one
 * the channel holds, or one it handed out last. The payload is a heap copy, so nothing needs releasing.
 *
 * @param place   the event's place in the channel's stream (see {@link ChannelPersister})
 * @param payload the event's payload, position to limit; read through a duplicate
 */
record HeldEvent(long place, ByteBuffer payload) {

    /** A heap copy of {@code payload}'s bytes from position to limit (its position is not moved). */
    static ByteBuffer copyOf(ByteBuffer payload) {
        ByteBuffer copy = ByteBuffer.allocate(payload.remaining());
        copy.put(payload.duplicate());
        return copy.flip();
    }
}
