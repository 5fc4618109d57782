package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import io.netty.buffer.ByteBuf;
import io.sluice.buffers.BufferRecycler;
import io.netty.buffer.Unpooled;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The named offsets and sizes of every message's body fields are where the encoder puts the fields: each test
 * encodes a message and reads each field back at {@code Frame.HEADER_LENGTH + *_OFFSET} with the width of its
 * {@code *_SIZE}, and checks the body length against the last field's end.
 */
class WireLayoutTest {

    private static final ResultPartitionId PARTITION = new ResultPartitionId(0x1111222233334444L, -5L);
    private static final InputChannelId RECEIVER = new InputChannelId(0x0102030405060708L, Long.MIN_VALUE);

    private final CodecChannels channels = new CodecChannels();

    @Test
    void partitionRequest_fieldsAtTheirNamedOffsets() {
        ByteBuf body = body(new PartitionRequest(PARTITION, 9, 11, RECEIVER, 4), PartitionRequest.BODY_LENGTH);

        assertPartitionId(body, PartitionRequest.PARTITION_ID_OFFSET, PartitionRequest.PARTITION_ID_SIZE);
        assertInt(9, body, PartitionRequest.SUBPARTITION_INDEX_OFFSET, PartitionRequest.SUBPARTITION_INDEX_SIZE);
        assertInt(11, body, PartitionRequest.LAST_SUBPARTITION_INDEX_OFFSET,
                PartitionRequest.LAST_SUBPARTITION_INDEX_SIZE);
        assertReceiverId(body, PartitionRequest.RECEIVER_ID_OFFSET, PartitionRequest.RECEIVER_ID_SIZE);
        assertInt(4, body, PartitionRequest.INITIAL_CREDIT_OFFSET, PartitionRequest.INITIAL_CREDIT_SIZE);
    }

    @Test
    void addCredit_fieldsAtTheirNamedOffsets() {
        ByteBuf body = body(new AddCredit(17, RECEIVER), AddCredit.BODY_LENGTH);

        assertInt(17, body, AddCredit.CREDIT_OFFSET, AddCredit.CREDIT_SIZE);
        assertReceiverId(body, AddCredit.RECEIVER_ID_OFFSET, AddCredit.RECEIVER_ID_SIZE);
    }

    @Test
    void newBufferSize_fieldsAtTheirNamedOffsets() {
        ByteBuf body = body(new NewBufferSize(4096, RECEIVER), NewBufferSize.BODY_LENGTH);

        assertInt(4096, body, NewBufferSize.BUFFER_SIZE_OFFSET, NewBufferSize.BUFFER_SIZE_SIZE);
        assertReceiverId(body, NewBufferSize.RECEIVER_ID_OFFSET, NewBufferSize.RECEIVER_ID_SIZE);
    }

    @Test
    void receiverOnlyMessages_fieldsAtTheirNamedOffsets() {
        ByteBuf cancel = body(new CancelPartitionRequest(RECEIVER), CancelPartitionRequest.BODY_LENGTH);
        assertReceiverId(cancel, CancelPartitionRequest.RECEIVER_ID_OFFSET, CancelPartitionRequest.RECEIVER_ID_SIZE);

        ByteBuf resume = body(new ResumeConsumption(RECEIVER), ResumeConsumption.BODY_LENGTH);
        assertReceiverId(resume, ResumeConsumption.RECEIVER_ID_OFFSET, ResumeConsumption.RECEIVER_ID_SIZE);
    }

    @Test
    void emptyMessages_haveNoBody() {
        body(new CloseRequest(), CloseRequest.BODY_LENGTH);
        body(Heartbeat.INSTANCE, Heartbeat.BODY_LENGTH);
        assertEquals(0, CloseRequest.BODY_LENGTH + Heartbeat.BODY_LENGTH);
    }

    @Test
    void taskEventRequest_fieldsAtTheirNamedOffsets_idsAfterTheEvent() {
        byte[] event = TestBuffers.pattern(13, 2);
        ByteBuf body = body(new TaskEventRequest(ByteBuffer.wrap(event), PARTITION, RECEIVER),
                TaskEventRequest.FIXED_BODY_LENGTH + event.length);

        assertInt(event.length, body, TaskEventRequest.EVENT_LENGTH_OFFSET, TaskEventRequest.EVENT_LENGTH_SIZE);
        byte[] read = new byte[event.length];
        body.getBytes(TaskEventRequest.EVENT_OFFSET, read);
        assertEquals(ByteBuffer.wrap(event), ByteBuffer.wrap(read));
        int afterEvent = TaskEventRequest.EVENT_OFFSET + event.length;
        assertPartitionId(body, afterEvent + TaskEventRequest.PARTITION_ID_AFTER_EVENT,
                TaskEventRequest.PARTITION_ID_SIZE);
        assertReceiverId(body, afterEvent + TaskEventRequest.RECEIVER_ID_AFTER_EVENT,
                TaskEventRequest.RECEIVER_ID_SIZE);
    }

    @Test
    void releasePartitions_countThenIdsAtTheirNamedOffsets() {
        ByteBuf body = body(new ReleasePartitions(java.util.List.of(PARTITION, PARTITION)),
                ReleasePartitions.PARTITION_IDS_OFFSET + 2 * ReleasePartitions.PARTITION_ID_SIZE);

        assertInt(2, body, ReleasePartitions.COUNT_OFFSET, ReleasePartitions.COUNT_SIZE);
        assertPartitionId(body, ReleasePartitions.PARTITION_IDS_OFFSET, ReleasePartitions.PARTITION_ID_SIZE);
        assertPartitionId(body, ReleasePartitions.PARTITION_IDS_OFFSET + ReleasePartitions.PARTITION_ID_SIZE,
                ReleasePartitions.PARTITION_ID_SIZE);
    }

    @Test
    void errorResponse_kindAndMessageAtTheirNamedOffsets_minimumBodyIsAllAbsent() {
        ByteBuf body = body(new ErrorResponse(ErrorKind.TRANSPORT, "boom", null, RECEIVER),
                ErrorResponse.KIND_SIZE + ErrorResponse.MESSAGE_LENGTH_SIZE + 4 + ErrorResponse.ABSENT_ID_SIZE
                        + ErrorResponse.ABSENT_ID_SIZE + WireFields.ID_LENGTH);

        assertEquals(ErrorKind.TRANSPORT.code(), body.getByte(ErrorResponse.KIND_OFFSET));
        assertInt(4, body, ErrorResponse.MESSAGE_OFFSET, ErrorResponse.MESSAGE_LENGTH_SIZE);

        body(new ErrorResponse(ErrorKind.TRANSPORT, null, null, null), ErrorResponse.MIN_BODY_LENGTH);
    }

    @Test
    void bufferResponse_headerFieldsAtTheirNamedOffsets_dataAfterThem() {
        BufferRecycler recycler = mock(BufferRecycler.class);
        Buffer data = TestBuffers.dataBuffer(40, 6, recycler);
        byte[] expected = TestBuffers.readableBytes(data);
        byte[] frame = channels.encode(new BufferResponse(data, RECEIVER, 21, 3, DataType.DATA_BUFFER, 40));
        assertEquals(BufferResponse.frameLength(40), frame.length);
        ByteBuf body = Unpooled.wrappedBuffer(frame, Frame.HEADER_LENGTH, frame.length - Frame.HEADER_LENGTH);

        assertReceiverId(body, BufferResponse.RECEIVER_ID_OFFSET, BufferResponse.RECEIVER_ID_SIZE);
        assertInt(21, body, BufferResponse.SEQUENCE_NUMBER_OFFSET, BufferResponse.SEQUENCE_NUMBER_SIZE);
        assertInt(3, body, BufferResponse.BACKLOG_OFFSET, BufferResponse.BACKLOG_SIZE);
        assertEquals(1, BufferResponse.DATA_TYPE_SIZE);
        assertEquals(DataType.DATA_BUFFER.code(), body.getByte(BufferResponse.DATA_TYPE_OFFSET));
        assertInt(40, body, BufferResponse.BUFFER_SIZE_OFFSET, BufferResponse.BUFFER_SIZE_SIZE);
        byte[] payload = new byte[40];
        body.getBytes(BufferResponse.DATA_OFFSET, payload);
        assertEquals(ByteBuffer.wrap(expected), ByteBuffer.wrap(payload));
        // the encoder hands the buffer to Netty, which recycles it once written
        verify(recycler, times(1)).recycle(any());
        channels.assertNettyMemoryReleased();
    }

    /** Encodes {@code message}, checks its frame holds exactly {@code bodyLength} body bytes, returns the body. */
    private ByteBuf body(NettyMessage message, int bodyLength) {
        byte[] frame = channels.encode(message);
        assertEquals(Frame.HEADER_LENGTH + bodyLength, frame.length, message + ": frame length");
        assertEquals(frame.length, Unpooled.wrappedBuffer(frame).getInt(0), message + ": frame length field");
        assertEquals(message.id(), frame[Frame.HEADER_LENGTH - 1], message + ": message id");
        return Unpooled.wrappedBuffer(frame, Frame.HEADER_LENGTH, bodyLength);
    }

    private static void assertInt(int expected, ByteBuf body, int offset, int size) {
        assertEquals(Integer.BYTES, size);
        assertEquals(expected, body.getInt(offset), "int at body offset " + offset);
    }

    private static void assertPartitionId(ByteBuf body, int offset, int size) {
        assertEquals(WireFields.ID_LENGTH, size);
        assertEquals(PARTITION, new ResultPartitionId(body.getLong(offset), body.getLong(offset + Long.BYTES)));
    }

    private static void assertReceiverId(ByteBuf body, int offset, int size) {
        assertEquals(WireFields.ID_LENGTH, size);
        assertEquals(RECEIVER, new InputChannelId(body.getLong(offset), body.getLong(offset + Long.BYTES)));
    }
}
