package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * A buffer or event of one gate of a {@link UnionInputGate}, renumbered into the union's
 * channel space. Ownership passes through unchanged: whoever receives this recycles it once,
 * which recycles the wrapped buffer or event. Not thread-safe, like the buffer it wraps.
 */
final class OffsetBufferOrEvent implements BufferOrEvent {

    private final BufferOrEvent delegate;
    private final int channelIndex;

    OffsetBufferOrEvent(BufferOrEvent delegate, int channelOffset) {
        this.delegate = delegate;
        this.channelIndex = delegate.channelIndex() + channelOffset;
    }

    @Override
    public int channelIndex() {
        return channelIndex;
    }

    @Override
    public boolean isEvent() {
        return delegate.isEvent();
    }

    @Override
    public boolean isPriority() {
        return delegate.isPriority();
    }

    @Override
    public boolean isAnnouncement() {
        return delegate.isAnnouncement();
    }

    @Override
    public int announcedSequenceNumber() {
        return delegate.announcedSequenceNumber();
    }

    @Override
    public ByteBuffer data() {
        return delegate.data();
    }

    @Override
    public void recycle() {
        delegate.recycle();
    }

    @Override
    public String toString() {
        return "BufferOrEvent{union channel=" + channelIndex + ", " + delegate + "}";
    }
}
