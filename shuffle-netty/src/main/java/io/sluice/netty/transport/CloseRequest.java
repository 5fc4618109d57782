package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * Client to server: the client's last channel on this connection is gone; the server releases every reader of the
 * connection and closes it. Empty body. Immutable; all instances are equal; any thread.
 */
public final class CloseRequest extends NettyMessage {

    static final byte ID = 5;

    /** Creates the (stateless) request. */
    public CloseRequest() {
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

    static CloseRequest readBody(ByteBuf in) {
        return new CloseRequest();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CloseRequest;
    }

    @Override
    public int hashCode() {
        return ID;
    }

    @Override
    public String toString() {
        return "CloseRequest";
    }
}
