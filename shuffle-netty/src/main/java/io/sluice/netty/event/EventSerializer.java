package io.sluice.netty.event;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;

import java.nio.ByteBuffer;

/**
 * Lays the library's events into event buffers and reads them back.
 *
 * <p>An event buffer is a heap buffer tagged as an event ({@link Buffer#isBuffer()} is false) whose first byte is
 * the event's {@link EventType} tag; a user event's payload follows the tag. Events never take memory from the
 * network buffer pools: they are small and must not block (docs/contract.md, {@code broadcastEvent}).
 *
 * <p>Stateless; any thread.
 */
public final class EventSerializer {

    /** Bytes before an event's payload: the one-byte type tag. */
    public static final int TAG_BYTES = 1;

    /** The largest serialized event: the type tag and {@link ResultPartitionWriter#MAX_EVENT_BYTES} of payload. */
    public static final int MAX_SERIALIZED_EVENT_BYTES = TAG_BYTES + ResultPartitionWriter.MAX_EVENT_BYTES;

    /** Bytes of an end-of-partition event that carries its data byte count: the tag and a long. */
    public static final int END_OF_PARTITION_COUNTED_BYTES = TAG_BYTES + Long.BYTES;

    /** Bytes of an end-of-partition event that carries its data byte and data buffer counts: the tag and two longs. */
    public static final int END_OF_PARTITION_FULLY_COUNTED_BYTES = TAG_BYTES + 2 * Long.BYTES;

    /** What an event buffer carries. */
    public enum EventType {
        /** The producer has finished this subpartition: no data follows. Never handed to the engine. */
        END_OF_PARTITION((byte) 0),
        /** An engine's event from {@code broadcastEvent}; its payload follows the tag. */
        USER_EVENT((byte) 1),
        /**
         * An engine's event from {@code broadcastBlockingEvent}; its payload follows the tag. Handed to the engine
         * like a user event; the subpartition that sent it sends nothing more until its consumer resumes it.
         */
        BLOCKING_USER_EVENT((byte) 2),
        /**
         * An engine's event from {@code broadcastAnnouncedBlockingEvent}: blocking like {@link #BLOCKING_USER_EVENT},
         * and announced by the remote channel that receives it (a priority announcement ahead of the data before it).
         */
        ANNOUNCED_BLOCKING_USER_EVENT((byte) 3);

        private final byte tag;

        EventType(byte tag) {
            this.tag = tag;
        }

        byte tag() {
            return tag;
        }

        /** Whether the subpartition that sends an event of this type sends nothing more until it is resumed. */
        public boolean blocks() {
            return this == BLOCKING_USER_EVENT || this == ANNOUNCED_BLOCKING_USER_EVENT;
        }
    }

    private EventSerializer() {
    }

    /**
     * A new end-of-partition event buffer that carries no data byte count (its consumer cannot check that it
     * received everything; see {@link #endOfPartition(long)}). The caller owns its one reference.
     */
    public static Buffer endOfPartition() {
        byte[] bytes = {EventType.END_OF_PARTITION.tag()};
        return new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, bytes.length);
    }

    /**
     * A new end-of-partition event buffer carrying {@code dataBytes}, the bytes of data buffers the producer wrote
     * to the subpartition: the tag, then the count as a big-endian long. The consumer's gate compares it with the
     * data bytes it took from the channel, so that a stream cut short anywhere between the producer's buffers and the
     * gate fails loudly instead of ending early. The caller owns its one reference.
     */
    public static Buffer endOfPartition(long dataBytes) {
        if (dataBytes < 0) {
            throw new IllegalArgumentException("data bytes of a subpartition cannot be negative: " + dataBytes);
        }
        ByteBuffer bytes = ByteBuffer.allocate(END_OF_PARTITION_COUNTED_BYTES);
        bytes.put(EventType.END_OF_PARTITION.tag()).putLong(dataBytes);
        return new Buffer(MemorySegment.wrap(bytes.array()), BufferRecycler.DISCARD, false, bytes.capacity());
    }

    /**
     * A new end-of-partition event buffer carrying {@code dataBytes} and {@code dataBuffers}, the data buffers the
     * producer stored for the subpartition (a blocking partition's, from its index): the tag, then both counts as
     * big-endian longs. The consumer's gate compares both with what it took from the channel. The caller owns its one
     * reference.
     */
    public static Buffer endOfPartition(long dataBytes, long dataBuffers) {
        if (dataBytes < 0 || dataBuffers < 0) {
            throw new IllegalArgumentException("data bytes and buffers of a subpartition cannot be negative: "
                    + dataBytes + " bytes, " + dataBuffers + " buffers");
        }
        ByteBuffer bytes = ByteBuffer.allocate(END_OF_PARTITION_FULLY_COUNTED_BYTES);
        bytes.put(EventType.END_OF_PARTITION.tag()).putLong(dataBytes).putLong(dataBuffers);
        return new Buffer(MemorySegment.wrap(bytes.array()), BufferRecycler.DISCARD, false, bytes.capacity());
    }

    /**
     * The data bytes an end-of-partition event says its producer wrote to the subpartition.
     *
     * @return the count, or -1 when the event carries none ({@link #endOfPartition()})
     * @throws IllegalArgumentException when {@code endOfPartition} is not an end-of-partition event, or its payload
     *     is neither empty nor counts
     */
    public static long dataBytesOf(Buffer endOfPartition) {
        return countOf(endOfPartition, 0, END_OF_PARTITION_COUNTED_BYTES);
    }

    /**
     * The data buffers an end-of-partition event says its producer wrote to the subpartition.
     *
     * @return the count, or -1 when the event carries none (only {@link #endOfPartition(long, long)} does)
     * @throws IllegalArgumentException like {@link #dataBytesOf}
     */
    public static long dataBuffersOf(Buffer endOfPartition) {
        return countOf(endOfPartition, 1, END_OF_PARTITION_FULLY_COUNTED_BYTES);
    }

    /** The {@code index}-th count of an end-of-partition event, or -1 when it is shorter than {@code carriedFrom}. */
    private static long countOf(Buffer endOfPartition, int index, int carriedFrom) {
        if (typeOf(endOfPartition) != EventType.END_OF_PARTITION) {
            throw new IllegalArgumentException("not an end-of-partition event: " + typeOf(endOfPartition));
        }
        int size = endOfPartition.readableBytes();
        if (size != TAG_BYTES && size != END_OF_PARTITION_COUNTED_BYTES
                && size != END_OF_PARTITION_FULLY_COUNTED_BYTES) {
            throw new IllegalArgumentException("an end-of-partition event is " + TAG_BYTES + ", "
                    + END_OF_PARTITION_COUNTED_BYTES + " or " + END_OF_PARTITION_FULLY_COUNTED_BYTES + " bytes (tag,"
                    + " then an optional 8-byte data byte count and an optional 8-byte data buffer count), not "
                    + size);
        }
        if (size < carriedFrom) {
            return -1;
        }
        long count = endOfPartition.getMemorySegment().getLong(endOfPartition.getMemorySegmentOffset()
                + endOfPartition.getReaderIndex() + TAG_BYTES + index * Long.BYTES);
        if (count < 0) {
            throw new IllegalArgumentException("an end-of-partition event carries a negative data "
                    + (index == 0 ? "byte" : "buffer") + " count: " + count);
        }
        return count;
    }

    /**
     * A new user event buffer holding a copy of {@code payload}'s remaining bytes; {@code payload}'s position and
     * limit are left as they were. The caller owns its one reference.
     */
    public static Buffer userEvent(ByteBuffer payload) {
        return taggedEvent(EventType.USER_EVENT, payload);
    }

    /**
     * A new blocking user event buffer (see {@link EventType#BLOCKING_USER_EVENT}) holding a copy of
     * {@code payload}'s remaining bytes; {@code payload}'s position and limit are left as they were. The caller owns
     * its one reference.
     */
    public static Buffer blockingUserEvent(ByteBuffer payload) {
        return taggedEvent(EventType.BLOCKING_USER_EVENT, payload);
    }

    /**
     * A new announced blocking user event buffer (see {@link EventType#ANNOUNCED_BLOCKING_USER_EVENT}) holding a copy
     * of {@code payload}'s remaining bytes; {@code payload}'s position and limit are left as they were. The caller
     * owns its one reference.
     */
    public static Buffer announcedBlockingUserEvent(ByteBuffer payload) {
        return taggedEvent(EventType.ANNOUNCED_BLOCKING_USER_EVENT, payload);
    }

    private static Buffer taggedEvent(EventType type, ByteBuffer payload) {
        int length = payload.remaining();
        byte[] bytes = new byte[TAG_BYTES + length];
        bytes[0] = type.tag();
        payload.duplicate().get(bytes, TAG_BYTES, length);
        return new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, bytes.length);
    }

    /**
     * Refuses an event payload larger than {@link ResultPartitionWriter#MAX_EVENT_BYTES}.
     *
     * @param what where the event was given, for the message (e.g. "broadcastEvent")
     * @throws IllegalArgumentException naming the size and the limit
     */
    public static void checkEventSize(ByteBuffer payload, String what) {
        if (payload.remaining() > ResultPartitionWriter.MAX_EVENT_BYTES) {
            throw new IllegalArgumentException(what + ": an event of " + payload.remaining()
                    + " bytes is larger than the limit of " + ResultPartitionWriter.MAX_EVENT_BYTES + " bytes; events are control "
                    + "messages, send data as records");
        }
    }

    /**
     * The type of an event buffer.
     *
     * @throws IllegalArgumentException when {@code event} is a data buffer, is empty, or carries an unknown tag
     */
    public static EventType typeOf(Buffer event) {
        if (event.isBuffer()) {
            throw new IllegalArgumentException("not an event buffer: a data buffer of " + event.getSize() + " bytes");
        }
        if (event.readableBytes() < TAG_BYTES) {
            throw new IllegalArgumentException("empty event buffer: an event carries at least its 1-byte type tag");
        }
        byte tag = event.getMemorySegment().get(event.getMemorySegmentOffset() + event.getReaderIndex());
        switch (tag) {
            case 0:
                return EventType.END_OF_PARTITION;
            case 1:
                return EventType.USER_EVENT;
            case 2:
                return EventType.BLOCKING_USER_EVENT;
            case 3:
                return EventType.ANNOUNCED_BLOCKING_USER_EVENT;
            default:
                throw new IllegalArgumentException("unknown event tag " + tag
                        + " (known: 0 end-of-partition, 1 user event, 2 blocking user event, 3 announced blocking "
                        + "user event)");
        }
    }

    /** True when {@code buffer} is an end-of-partition event. */
    public static boolean isEndOfPartition(Buffer buffer) {
        return !buffer.isBuffer() && typeOf(buffer) == EventType.END_OF_PARTITION;
    }

    /** True when {@code buffer} is a blocking user event, announced or not. */
    public static boolean isBlockingEvent(Buffer buffer) {
        return !buffer.isBuffer() && typeOf(buffer).blocks();
    }

    /** A fresh view of a user event's payload (the bytes after the tag); shares the buffer's memory. */
    public static ByteBuffer payloadOf(Buffer event) {
        int start = event.getReaderIndex() + TAG_BYTES;
        return event.getNioBuffer(start, event.getSize() - start);
    }
}
