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

    /**
     * Whether this is an announcement: a priority element a channel hands out as soon as it receives an event its
     * producer sent with {@link ResultPartitionWriter#broadcastAnnouncedBlockingEvent}, ahead of the data it holds
     * before that event. {@link #data()} is the announced event's payload and {@link #announcedSequenceNumber()}
     * names the event for {@link InputGate#prioritizeAnnounced}; the event itself is still handed out in its place
     * (or, once prioritized, as a priority event). An announcement is a priority event ({@link #isEvent()} and
     * {@link #isPriority()} are true). An addition to the original interface; the default is false.
     *
     * @return true for an announcement
     */
    default boolean isAnnouncement() {
        return false;
    }

    /**
     * For an announcement, the number that names the announced event in its channel (see
     * {@link InputGate#prioritizeAnnounced}); -1 for any other element. An addition to the original interface.
     *
     * @return the announced event's sequence number, or -1
     */
    default int announcedSequenceNumber() {
        return -1;
    }

    /** @return the buffer's bytes or the event's payload, from position to limit; valid until {@link #recycle()} */
    ByteBuffer data();

    /** Hands the memory back to its pool; required exactly once. */
    void recycle();
}
