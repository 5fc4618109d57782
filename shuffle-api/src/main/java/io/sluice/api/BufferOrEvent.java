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

    /**
     * Whether this is a priority event: one its producer sent with
     * {@link ResultPartitionWriter#broadcastEvent(java.nio.ByteBuffer, boolean) broadcastEvent(event, true)}, which
     * overtook the data queued before it in the producer's subpartition and in the receiving channel. False for
     * buffers, for ordinary and blocking events, and for events of a blocking partition (which keep their order).
     * An addition to the original interface: implementations that know no priority keep the default, false.
     *
     * @return true for a priority event
     */
    default boolean isPriority() {
        return false;
    }

    /** @return the buffer's bytes or the event's payload, from position to limit; valid until {@link #recycle()} */
    ByteBuffer data();

    /** Hands the memory back to its pool; required exactly once. */
    void recycle();
}
