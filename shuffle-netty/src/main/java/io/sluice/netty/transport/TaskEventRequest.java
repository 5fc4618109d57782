package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Client to server: an engine-defined event travelling upstream, from the consumer channel {@code receiverId} to the
 * producer of {@code partitionId}. Body: event length (4), event bytes, partition id (16), receiver id (16); the
 * fields after the event start at {@code EVENT_OFFSET + eventLength}. Immutable (the event bytes are copied in);
 * equal when the event bytes and ids are; any thread.
 *
 * @param event       the serialized event: its remaining bytes are copied, its position is not moved; the accessor
 *                    returns a read-only view at position 0
 * @param partitionId the partition whose producer receives the event
 * @param receiverId  the sending input channel
 */
public record TaskEventRequest(ByteBuffer event, ResultPartitionId partitionId, InputChannelId receiverId)
        implements NettyMessage {

    static final byte ID = 6;

    static final int EVENT_LENGTH_OFFSET = 0;
    static final int EVENT_LENGTH_SIZE = Integer.BYTES;
    static final int EVENT_OFFSET = EVENT_LENGTH_OFFSET + EVENT_LENGTH_SIZE;
    /** Relative to the end of the event: {@code EVENT_OFFSET + eventLength + PARTITION_ID_AFTER_EVENT}. */
    static final int PARTITION_ID_AFTER_EVENT = 0;
    static final int PARTITION_ID_SIZE = WireFields.ID_LENGTH;
    /** Relative to the end of the event. */
    static final int RECEIVER_ID_AFTER_EVENT = PARTITION_ID_AFTER_EVENT + PARTITION_ID_SIZE;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    /** The body without the event bytes. */
    static final int FIXED_BODY_LENGTH = EVENT_OFFSET + RECEIVER_ID_AFTER_EVENT + RECEIVER_ID_SIZE;

    /** Copies the event's remaining bytes (a read-only buffer of its own) and checks the ids. */
    public TaskEventRequest {
        event = copyRemaining(Objects.requireNonNull(event, "event"));
        Objects.requireNonNull(partitionId, "partitionId");
        Objects.requireNonNull(receiverId, "receiverId");
    }

    /** @return a read-only view of the event bytes (position 0) */
    @Override
    public ByteBuffer event() {
        return event.duplicate();
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int bodyLength() {
        return bodyLength(event.remaining());
    }

    private static int bodyLength(int eventLength) {
        return FIXED_BODY_LENGTH + eventLength;
    }

    /** The length of the frame of a request carrying an event of {@code eventLength} bytes, header included. */
    static int frameLength(int eventLength) {
        return Frame.HEADER_LENGTH + bodyLength(eventLength);
    }

    @Override
    public void writeBody(ByteBuf out) {
        out.writeInt(event.remaining());
        out.writeBytes(event.duplicate());
        WireFields.writeId(out, partitionId);
        WireFields.writeId(out, receiverId);
    }

    static TaskEventRequest readBody(ByteBuf in) {
        byte[] event = new byte[WireFields.readLength(in, "event")];
        in.readBytes(event);
        ResultPartitionId partitionId = WireFields.readResultPartitionId(in);
        return new TaskEventRequest(ByteBuffer.wrap(event), partitionId, WireFields.readInputChannelId(in));
    }

    private static ByteBuffer copyRemaining(ByteBuffer source) {
        byte[] bytes = new byte[source.remaining()];
        source.get(source.position(), bytes);
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    @Override
    public String toString() {
        return "TaskEventRequest[" + event.remaining() + " bytes for partition " + partitionId
                + " from receiver " + receiverId + "]";
    }
}
