package io.sluice.netty.transport;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.api.ResultPartitionId;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/** MSG-1: every client-to-server message survives the encoder and the {@link ServerMessageDecoder} unchanged. */
class ClientToServerMessagesTest {

    /** Ids that use the sign bit and every nibble, so that a swapped or truncated half shows. */
    private static final ResultPartitionId PARTITION = new ResultPartitionId(0x0123456789abcdefL, -2L);
    private static final InputChannelId RECEIVER = new InputChannelId(Long.MIN_VALUE, Long.MAX_VALUE);

    private final CodecChannels channels = new CodecChannels();
    private final EmbeddedChannel server = channels.server(CodecChannels.MAX_FRAME_LENGTH);

    @AfterEach
    void noNettyMemoryLeft() {
        assertEquals(List.of(), CodecChannels.readInbound(server));
        server.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    static Stream<NettyMessage> clientMessages() {
        return Stream.of(
                new PartitionRequest(PARTITION, 7, RECEIVER, 2),
                new PartitionRequest(PARTITION, 0, RECEIVER, 0),
                new PartitionRequest(PARTITION, Integer.MAX_VALUE, RECEIVER, Integer.MAX_VALUE),
                new AddCredit(1, RECEIVER),
                new AddCredit(Integer.MAX_VALUE, RECEIVER),
                new CancelPartitionRequest(RECEIVER),
                new ResumeConsumption(RECEIVER),
                new NewBufferSize(4096, RECEIVER),
                new CloseRequest(),
                new TaskEventRequest(ByteBuffer.wrap(TestBuffers.pattern(100, 3)), PARTITION, RECEIVER),
                new TaskEventRequest(ByteBuffer.allocate(0), PARTITION, RECEIVER),
                new ReleasePartitions(List.of(PARTITION)),
                new ReleasePartitions(List.of(PARTITION, ResultPartitionId.random(), ResultPartitionId.random())));
    }

    @ParameterizedTest
    @MethodSource("clientMessages")
    void clientMessage_encodedAndDecodedByServer_hasEveryFieldEqual(NettyMessage sent) {
        List<Object> decoded = channels.decode(server, channels.encode(sent));

        assertEquals(List.of(sent), decoded);
        assertNotSame(sent, decoded.get(0));
    }

    @Test
    void partitionRequest_decodedFields_matchTheConstructorArguments() {
        PartitionRequest decoded = (PartitionRequest) channels.decode(server,
                channels.encode(new PartitionRequest(PARTITION, 7, RECEIVER, 2))).get(0);

        assertEquals(PARTITION, decoded.partitionId());
        assertEquals(7, decoded.subpartitionIndex());
        assertEquals(RECEIVER, decoded.receiverId());
        assertEquals(2, decoded.initialCredit());
    }

    @Test
    void taskEventRequest_decodedEvent_holdsTheSameBytes() {
        byte[] event = TestBuffers.pattern(300, 9);
        TaskEventRequest decoded = (TaskEventRequest) channels.decode(server,
                channels.encode(new TaskEventRequest(ByteBuffer.wrap(event), PARTITION, RECEIVER))).get(0);

        ByteBuffer decodedEvent = decoded.event();
        byte[] bytes = new byte[decodedEvent.remaining()];
        decodedEvent.get(bytes);
        assertArrayEquals(event, bytes);
    }

    @Test
    void frame_startsWithItsWholeLength_magic_version_andMessageId() {
        byte[] wire = channels.encode(new AddCredit(5, RECEIVER));
        ByteBuffer frame = ByteBuffer.wrap(wire);

        assertEquals(Frame.HEADER_LENGTH + Integer.BYTES + 16, wire.length);
        assertEquals(wire.length, frame.getInt(0), "frameLength counts the whole frame, itself included");
        assertEquals(0x534C4345, frame.getInt(4));
        assertEquals(6, frame.get(8), "protocol version 6 (heartbeats, ReleasePartitions, StoredBuffersResponse, "
                + "the last subpartition index of a PartitionRequest and checksums of stored buffers, then "
                + "NewBufferSize)");
        assertEquals(AddCredit.ID, frame.get(9));
        assertEquals(5, frame.getInt(10));
    }

    @Test
    void releasePartitions_ofTheMostIdsOneMessageCarries_fitsTheServersFrameLimit() {
        List<ResultPartitionId> ids = new java.util.ArrayList<>();
        for (int i = 0; i < ReleasePartitions.MAX_IDS; i++) {
            ids.add(ResultPartitionId.random());
        }
        byte[] wire = channels.encode(new ReleasePartitions(ids));

        assertTrue(wire.length <= ServerMessageDecoder.maxClientFrameLength(), wire.length + " bytes");
        ids.add(ResultPartitionId.random());
        assertThrows(IllegalArgumentException.class, () -> new ReleasePartitions(ids), "one id too many");
        assertThrows(IllegalArgumentException.class, () -> new ReleasePartitions(List.of()));
    }

    @Test
    void heartbeat_isAnEmptyFrame_andDecodesOnBothSides() {
        byte[] wire = channels.encode(Heartbeat.INSTANCE);

        assertEquals(Frame.HEADER_LENGTH, wire.length);
        assertEquals(Heartbeat.ID, wire[9]);
        channels.feed(server, wire, 3);
        assertEquals(Heartbeat.INSTANCE, server.readInbound());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 64, 100_000})
    void allClientMessagesInOneStream_splitIntoChunks_decodeInOrder(int chunkSize) {
        NettyMessage[] sent = clientMessages().toArray(NettyMessage[]::new);

        channels.feed(server, channels.encode(sent), chunkSize);

        assertEquals(List.of(sent), CodecChannels.readInbound(server));
    }
}
