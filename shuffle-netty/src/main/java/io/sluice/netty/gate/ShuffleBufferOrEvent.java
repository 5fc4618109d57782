package io.sluice.netty.gate;

import io.sluice.api.BufferOrEvent;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;

/**
 * A buffer or a user event handed to the engine by a gate.
 *
 * <p>Ownership: the engine owns one reference of the buffer and hands it back with {@link #recycle()}, exactly
 * once; a second call fails. {@link #data()} may be called from the consumer thread while the buffer is held.
 */
final class ShuffleBufferOrEvent implements BufferOrEvent {

    private final int channelIndex;
    private final Buffer buffer;

    ShuffleBufferOrEvent(int channelIndex, Buffer buffer) {
        this.channelIndex = channelIndex;
        this.buffer = buffer;
    }

    @Override
    public int channelIndex() {
        return channelIndex;
    }

    @Override
    public boolean isEvent() {
        return !buffer.isBuffer();
    }

    @Override
    public ByteBuffer data() {
        return buffer.isBuffer() ? buffer.getNioBufferReadable() : EventSerializer.payloadOf(buffer);
    }

    @Override
    public void recycle() {
        buffer.recycleBuffer();
    }

    @Override
    public String toString() {
        return (isEvent() ? "event" : "buffer") + " of " + buffer.readableBytes() + " bytes from channel "
                + channelIndex;
    }
}
