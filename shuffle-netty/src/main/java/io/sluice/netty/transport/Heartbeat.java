package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * Both directions: "I am alive". Sent by {@link HeartbeatHandler} on a connection that had nothing else to send for
 * {@code shuffle.netty.heartbeat-interval}; it only proves that complete frames still arrive and is never passed
 * beyond the heartbeat handler. Empty body (a frame of {@link Frame#HEADER_LENGTH} bytes). Immutable and stateless:
 * all instances are equal, {@link #INSTANCE} is the one the library sends; any thread.
 */
public record Heartbeat() implements EmptyBodyMessage {

    static final byte ID = 7;

    /** The instance to send: the message carries nothing. */
    public static final Heartbeat INSTANCE = new Heartbeat();

    @Override
    public byte id() {
        return ID;
    }

    static Heartbeat readBody(ByteBuf in) {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "Heartbeat";
    }
}
