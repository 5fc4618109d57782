package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * One unit an {@link InputGate} hands out: a buffer of framed record bytes
 * (see {@link RecordFraming}) or an event. The receiver owns it and must call
 * {@link #recycle()} exactly once when done with its bytes. Used by the gate's consumer thread.
 */
public interface BufferOrEvent {

    /** @return the gate channel it arrived on */
    int channelIndex();

    /** @return true for an event, false for a buffer of record bytes */
    boolean isEvent();

    /** @return the buffer's bytes or the event's payload, from position to limit; valid until {@link #recycle()} */
    ByteBuffer data();

    /** Hands the memory back to its pool; required exactly once. */
    void recycle();
}
