package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Client to server: an engine-defined event travelling upstream, from the consumer channel {@code receiverId} to the
 * producer of {@code partitionId}. Body: event length (4), event bytes, partition id (16), receiver id (16).
 * Immutable (the event bytes are copied in); any thread.
 */
public final class TaskEventRequest extends NettyMessage {

    static final byte ID = 6;

    private final byte[] event;
    private final ResultPartitionId partitionId;
    private final InputChannelId receiverId;

    /**
     * @param event       the serialized event: its remaining bytes are copied, its position is not moved
     * @param partitionId the partition whose producer receives the event
     * @param receiverId  the sending input channel
     */
    public TaskEventRequest(ByteBuffer event, ResultPartitionId partitionId, InputChannelId receiverId) {
        this(copyRemaining(Objects.requireNonNull(event, "event")), partitionId, receiverId);
    }

    private TaskEventRequest(byte[] event, ResultPartitionId partitionId, InputChannelId receiverId) {
        this.event = event;
        this.partitionId = Objects.requireNonNull(partitionId, "partitionId");
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
    }

    /** @return a read-only view of the event bytes (position 0) */
    public ByteBuffer event() {
        return ByteBuffer.wrap(event).asReadOnlyBuffer();
    }

    public ResultPartitionId partitionId() {
        return partitionId;
    }

    public InputChannelId receiverId() {
        return receiverId;
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    int bodyLength() {
        return bodyLength(event.length);
    }

    private static int bodyLength(int eventLength) {
        return Integer.BYTES + eventLength + 2 * WireFields.ID_LENGTH;
    }

    /** The length of the frame of a request carrying an event of {@code eventLength} bytes, header included. */
    static int frameLength(int eventLength) {
        return Frame.HEADER_LENGTH + bodyLength(eventLength);
    }

    @Override
    void writeBody(ByteBuf out) {
        out.writeInt(event.length);
        out.writeBytes(event);
        WireFields.writeId(out, partitionId);
        WireFields.writeId(out, receiverId);
    }

    static TaskEventRequest readBody(ByteBuf in) {
        byte[] event = new byte[WireFields.readLength(in, "event")];
        in.readBytes(event);
        ResultPartitionId partitionId = WireFields.readResultPartitionId(in);
        return new TaskEventRequest(event, partitionId, WireFields.readInputChannelId(in));
    }

    private static byte[] copyRemaining(ByteBuffer source) {
        byte[] bytes = new byte[source.remaining()];
        source.get(source.position(), bytes);
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskEventRequest other
                && Arrays.equals(event, other.event)
                && partitionId.equals(other.partitionId)
                && receiverId.equals(other.receiverId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(event), partitionId, receiverId);
    }

    @Override
    public String toString() {
        return "TaskEventRequest[" + event.length + " bytes for partition " + partitionId
                + " from receiver " + receiverId + "]";
    }
}
