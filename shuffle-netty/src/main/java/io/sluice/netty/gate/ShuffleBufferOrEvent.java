package io.sluice.netty.gate;

import io.sluice.api.BufferOrEvent;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A buffer or a user event handed to the engine by a gate.
 *
 * <p>Ownership: the engine owns one reference of the buffer and hands it back with {@link #recycle()}, exactly
 * once. A second call throws {@link IllegalStateException} naming the channel and does not touch the buffer: a
 * local channel's buffer is a slice sharing its reference count with the producer's builder and the subpartition,
 * so releasing a reference twice would pull the segment from under the producer. The check costs one field per
 * object and a compare-and-set, no allocation. {@link #data()} may be called from the consumer thread while the
 * buffer is held; {@link #recycle()} from any thread.
 */
final class ShuffleBufferOrEvent implements BufferOrEvent {

    private static final VarHandle RECYCLED;

    static {
        try {
            RECYCLED = MethodHandles.lookup().findVarHandle(ShuffleBufferOrEvent.class, "recycled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int channelIndex;
    private final Buffer buffer;
    private final boolean priority;
    /** For an announcement its sequence number, else -1. */
    private final int announcement;
    /** Set once by the first {@link #recycle()}; written only through {@link #RECYCLED}. */
    @SuppressWarnings("unused")
    private volatile boolean recycled;

    ShuffleBufferOrEvent(int channelIndex, Buffer buffer, boolean priority) {
        this(channelIndex, buffer, priority, -1);
    }

    /**
     * @param announcement for an announcement (a priority event over an announced event's bytes) its sequence
     *                     number, else -1
     */
    ShuffleBufferOrEvent(int channelIndex, Buffer buffer, boolean priority, int announcement) {
        this.channelIndex = channelIndex;
        this.buffer = buffer;
        this.priority = priority;
        this.announcement = announcement;
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
    public boolean isPriority() {
        return priority;
    }

    @Override
    public boolean isAnnouncement() {
        return announcement >= 0;
    }

    @Override
    public int announcedSequenceNumber() {
        return announcement;
    }

    @Override
    public ByteBuffer data() {
        return buffer.isBuffer() ? buffer.getNioBufferReadable() : EventSerializer.payloadOf(buffer);
    }

    @Override
    public void recycle() {
        if (!RECYCLED.compareAndSet(this, false, true)) {
            throw new IllegalStateException((isEvent() ? "event" : "buffer") + " from channel "
                    + channelIndex + " was recycled twice: each BufferOrEvent is recycled exactly once");
        }
        buffer.recycleBuffer();
    }

    @Override
    public String toString() {
        return (announcement >= 0 ? "announcement " + announcement : priority ? "priority event"
                : isEvent() ? "event" : "buffer") + " of " + buffer.readableBytes()
                + " bytes from channel " + channelIndex;
    }
}
