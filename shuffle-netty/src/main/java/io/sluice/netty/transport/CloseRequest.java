package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * Client to server: the client's last channel on this connection is gone; the server releases every reader of the
 * connection and closes it. Empty body. Immutable; all instances are equal; any thread.
 */
public record CloseRequest() implements EmptyBodyMessage {

    static final byte ID = 5;

    @Override
    public byte id() {
        return ID;
    }

    static CloseRequest readBody(ByteBuf in) {
        return new CloseRequest();
    }

    @Override
    public String toString() {
        return "CloseRequest";
    }
}
