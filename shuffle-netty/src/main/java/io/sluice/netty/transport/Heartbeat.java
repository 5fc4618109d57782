package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * Both directions: "I am alive". Sent by {@link HeartbeatHandler} on a connection that had nothing else to send for
 * {@code shuffle.netty.heartbeat-interval}; it only proves that complete frames still arrive and is never passed
 * beyond the heartbeat handler. Empty body (a frame of {@link Frame#HEADER_LENGTH} bytes). Immutable and stateless:
 * one shared instance; any thread.
 */
public final class Heartbeat extends NettyMessage {

    static final byte ID = 7;

    /** The one instance: the message carries nothing. */
    public static final Heartbeat INSTANCE = new Heartbeat();

    private Heartbeat() {
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    int bodyLength() {
        return 0;
    }

    @Override
    void writeBody(ByteBuf out) {
        // empty body
    }

    static Heartbeat readBody(ByteBuf in) {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "Heartbeat";
    }
}
