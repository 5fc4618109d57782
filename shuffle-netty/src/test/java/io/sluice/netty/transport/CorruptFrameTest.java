package io.sluice.netty.transport;

import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Frames that break the protocol make both decoders throw {@link CorruptFrameException} naming the numbers, as
 * soon as the offending header or body has arrived; afterwards the decoder discards its input.
 */
class CorruptFrameTest {

    private static final int MAX = CodecChannels.MAX_FRAME_LENGTH;
    private static final int MAGIC = 0x534C4345;
    private static final InputChannelId RECEIVER = new InputChannelId(5, 6);

    /** Which decoder receives the frames. */
    enum Side {
        SERVER(CloseRequest.ID, "client-to-server", channels -> channels.server(MAX)),
        CLIENT(ErrorResponse.ID, "server-to-client", channels -> channels.client(new TestNetworkBufferAllocator()));

        /** A message id this side accepts. */
        final byte acceptedId;
        final String direction;
        final Function<CodecChannels, EmbeddedChannel> decoder;

        Side(byte acceptedId, String direction, Function<CodecChannels, EmbeddedChannel> decoder) {
            this.acceptedId = acceptedId;
            this.direction = direction;
            this.decoder = decoder;
        }
    }

    private final CodecChannels channels = new CodecChannels();

    @AfterEach
    void nothingLeaks() {
        channels.assertNettyMemoryReleased();
    }

    static Stream<Arguments> badHeaders() {
        return Stream.of(Side.values()).flatMap(side -> Stream.of(
                Arguments.of(side, header(14, 0x12345678, Frame.VERSION, side.acceptedId),
                        "bad magic 0x12345678, expected 0x534C4345"),
                Arguments.of(side, header(14, MAGIC, 1, side.acceptedId), "unsupported protocol version 1, expected " + Frame.VERSION),
                // A peer of the version before: its partition requests lack the range's last index.
                Arguments.of(side, header(14, MAGIC, 4, side.acceptedId), "unsupported protocol version 4, expected 6"),
                // A peer of the version before buffer debloating, which knows no NewBufferSize.
                Arguments.of(side, header(14, MAGIC, 5, side.acceptedId), "unsupported protocol version 5, expected 6"),
                Arguments.of(side, header(14, MAGIC, Frame.VERSION, 42), "message id 42 is not a " + side.direction + " message"),
                Arguments.of(side, header(-1, MAGIC, Frame.VERSION, side.acceptedId), "negative frame length -1"),
                Arguments.of(side, header(9, MAGIC, Frame.VERSION, side.acceptedId),
                        "frame length 9 is shorter than the 10-byte frame header"),
                Arguments.of(side, header(MAX + 1, MAGIC, Frame.VERSION, side.acceptedId),
                        "frame length " + (MAX + 1) + " exceeds the decoder's limit of " + MAX + " bytes")));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("badHeaders")
    void badFrameHeader_isRejectedOnceTheHeaderArrived(Side side, byte[] header, String expectedMessage) {
        assertCorrupt(side.decoder.apply(channels), header, expectedMessage);
    }

    static Stream<Arguments> badServerBodies() {
        return Stream.of(
                Arguments.of(frame(BufferResponse.ID, new byte[29]),
                        "message id 1 is not a client-to-server message"),
                Arguments.of(frame(AddCredit.ID, ByteBuffer.allocate(20).putInt(0).array()),
                        "invalid AddCredit: credit must be > 0, was 0"),
                Arguments.of(frame(NewBufferSize.ID, ByteBuffer.allocate(20).putInt(0).array()),
                        "invalid NewBufferSize: buffer size must be > 0, was 0"),
                Arguments.of(frame(CancelPartitionRequest.ID, new byte[20]),
                        "CancelPartitionRequest body of 20 bytes has 4 bytes left over"),
                Arguments.of(frame(PartitionRequest.ID, new byte[20]), "PartitionRequest body of 20 bytes ends early"),
                Arguments.of(frame(TaskEventRequest.ID, ByteBuffer.allocate(40).putInt(1000).array()),
                        "bad event length 1000: 36 bytes left in the frame"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badServerBodies")
    void badClientMessageBody_isRejectedByTheServer(byte[] frame, String expectedMessage) {
        assertCorrupt(channels.server(MAX), frame, expectedMessage);
    }

    static Stream<Arguments> badClientBodies() {
        return Stream.of(
                Arguments.of(frame(AddCredit.ID, new byte[20]), "message id 3 is not a server-to-client message"),
                Arguments.of(frame(BufferResponse.ID, new byte[10]),
                        "frame length 20 is too short for a BufferResponse: body of 10 bytes, at least 29 needed"),
                Arguments.of(frame(BufferResponse.ID, bufferResponseHeader(0, 100), new byte[50]),
                        "BufferResponse announces 100 bytes, but its frame of 89 bytes holds 50"),
                Arguments.of(frame(BufferResponse.ID, bufferResponseHeader(9, 0)), "unknown data type code 9"),
                Arguments.of(frame(ErrorResponse.ID, new byte[] {9, -1, -1, -1, -1, 0, 0}),
                        "unknown error kind code 9"),
                Arguments.of(frame(ErrorResponse.ID, new byte[] {0, -1, -1, -1, -1, 7, 0}),
                        "bad presence byte 7 for the partition id, expected 0 or 1"),
                Arguments.of(frame(ErrorResponse.ID, new byte[] {2, 0, 0, 0, 50, 'x', 0, 0}),
                        "bad string length 50: 3 bytes left in the frame"),
                // Found by ClientMessageDecoderFuzzTest: events that no consumer can read were delivered.
                Arguments.of(frame(BufferResponse.ID, bufferResponseHeader(1, 3), new byte[] {9, 'a', 'b'}),
                        "does not carry a valid event: unknown event tag 9"),
                Arguments.of(frame(BufferResponse.ID, bufferResponseHeader(2, 0)),
                        "is empty, but every event carries at least its 1-byte type tag"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badClientBodies")
    void badServerMessageBody_isRejectedByTheClient(byte[] frame, String expectedMessage) {
        assertCorrupt(channels.client(new TestNetworkBufferAllocator(RECEIVER)), frame, expectedMessage);
    }

    @Test
    void eventWithAnUnknownTag_isACorruptFrame_andItsBufferIsRecycled() {
        TestNetworkBufferAllocator buffers = new TestNetworkBufferAllocator(RECEIVER);

        assertCorrupt(channels.client(buffers), frame(BufferResponse.ID, bufferResponseHeader(2, 3),
                new byte[] {9, 'a', 'b'}), "BufferResponse[PRIORITY_EVENT_BUFFER, 3 bytes for receiver");

        assertEquals(1, buffers.eventRequests());
        assertEquals(1, buffers.recycled(), "the event buffer taken for the payload is recycled");
    }

    // An event frame above the event limit is refused before anything is allocated for it
    @Test
    void eventFrameAboveTheEventLimit_isCorrupt_andNothingIsAllocatedForIt() {
        TestNetworkBufferAllocator buffers = new TestNetworkBufferAllocator(RECEIVER);
        EmbeddedChannel client = channels.channel(new ClientMessageDecoder(buffers, 1 << 20));
        int size = io.sluice.netty.event.EventSerializer.MAX_SERIALIZED_EVENT_BYTES + 1;
        byte[] headerOnly = ByteBuffer.allocate(Frame.HEADER_LENGTH + BufferResponse.HEADER_LENGTH)
                .put(header(BufferResponse.frameLength(size), MAGIC, Frame.VERSION, BufferResponse.ID))
                .put(bufferResponseHeader(1, size)).array();

        assertCorrupt(client, headerOnly, "event of " + size + " bytes exceeds the limit of "
                + io.sluice.netty.event.EventSerializer.MAX_SERIALIZED_EVENT_BYTES + " bytes");
        assertEquals(List.of(), buffers.handedOut());
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void afterACorruptFrame_laterValidFramesAreDiscarded(Side side) {
        TestNetworkBufferAllocator buffers = new TestNetworkBufferAllocator(RECEIVER);
        EmbeddedChannel channel = side == Side.SERVER ? channels.server(MAX) : channels.client(buffers);
        byte[] valid = side == Side.SERVER ? channels.encode(new CloseRequest())
                : channels.encode(new BufferResponse(TestBuffers.dataBuffer(10, 1, mock(BufferRecycler.class)), RECEIVER,
                0, 0, DataType.DATA_BUFFER, 10));
        assertThrows(CorruptFrameException.class, () -> channels.feed(channel, header(14, 0, 1, 0), 100));

        channels.feed(channel, valid, 3);

        assertEquals(List.of(), CodecChannels.readInbound(channel));
        assertEquals(List.of(), buffers.handedOut());
        channel.finishAndReleaseAll();
    }

    private void assertCorrupt(EmbeddedChannel decoder, byte[] bytes, String expectedMessage) {
        CorruptFrameException e = assertThrows(CorruptFrameException.class,
                () -> channels.feed(decoder, bytes, bytes.length));
        assertTrue(e.getMessage().contains(expectedMessage), () -> "message: " + e.getMessage());
        assertEquals(List.of(), CodecChannels.readInbound(decoder));
        decoder.finishAndReleaseAll();
    }

    private static byte[] header(int frameLength, int magic, int version, int messageId) {
        return ByteBuffer.allocate(Frame.HEADER_LENGTH)
                .putInt(frameLength).putInt(magic).put((byte) version).put((byte) messageId).array();
    }

    /** A frame with a correct header around {@code body} (given in parts). */
    private static byte[] frame(byte messageId, byte[]... bodyParts) {
        int bodyLength = 0;
        for (byte[] part : bodyParts) {
            bodyLength += part.length;
        }
        ByteBuffer frame = ByteBuffer.allocate(Frame.HEADER_LENGTH + bodyLength)
                .put(header(Frame.HEADER_LENGTH + bodyLength, MAGIC, Frame.VERSION, messageId));
        for (byte[] part : bodyParts) {
            frame.put(part);
        }
        return frame.array();
    }

    private static byte[] bufferResponseHeader(int dataTypeCode, int bufferSize) {
        return ByteBuffer.allocate(BufferResponse.HEADER_LENGTH)
                .putLong(RECEIVER.upper()).putLong(RECEIVER.lower())
                .putInt(0).putInt(0).put((byte) dataTypeCode).putInt(bufferSize).array();
    }
}
