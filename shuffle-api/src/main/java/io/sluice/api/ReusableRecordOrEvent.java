package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * The one {@link RecordOrEvent} a {@link RecordReader} hands out again and again, so that reading
 * a record allocates nothing. Not thread-safe: written by the reader inside next() and read between two calls of
 * {@link RecordReader#next()}, both on the reader's consumer thread.
 */
final class ReusableRecordOrEvent implements RecordOrEvent {

    private int channelIndex;
    private boolean event;
    private ByteBuffer data;

    /** Points this holder at the next record or event and returns it. */
    RecordOrEvent set(int channelIndex, boolean event, ByteBuffer data) {
        this.channelIndex = channelIndex;
        this.event = event;
        // Every record of a buffer comes in the same view, so the reference changes once per buffer. Storing it
        // only then matters for speed: a reference store into this long-lived (old-generation) holder runs G1's
        // post-write barrier, whose card check includes a full fence, on every record.
        if (this.data != data) {
            this.data = data;
        }
        return this;
    }

    @Override
    public int channelIndex() {
        return channelIndex;
    }

    @Override
    public boolean isEvent() {
        return event;
    }

    @Override
    public ByteBuffer data() {
        return data;
    }

    @Override
    public String toString() {
        return (event ? "Event" : "Record") + "{channel=" + channelIndex + ", bytes="
                + (data == null ? 0 : data.remaining()) + "}";
    }
}
