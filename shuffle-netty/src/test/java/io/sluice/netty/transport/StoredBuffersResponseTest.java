package io.sluice.netty.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.buffers.BufferRecycler;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.SharedFileChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run of a blocking partition's stored buffers sent from its file in one frame ({@link StoredBuffersResponse}):
 * the client decoder hands on exactly the BufferResponses separate frames would have given, however the stream is
 * cut, and rejects a run whose stored headers do not add up.
 */
class StoredBuffersResponseTest {

    private static final InputChannelId KNOWN = new InputChannelId(1, 2);
    private static final InputChannelId UNKNOWN = new InputChannelId(3, 4);

    @TempDir
    Path directory;

    private final CodecChannels channels = new CodecChannels();
    private final TestNetworkBufferAllocator receiving = new TestNetworkBufferAllocator(KNOWN);
    private final EmbeddedChannel client = channels.client(receiving);
    private final BufferRecycler sending = mock(BufferRecycler.class);
    private StoredRuns runs;
    private SharedFileChannel file;

    @BeforeEach
    void runsInTheTestDirectory() {
        runs = new StoredRuns(directory);
    }

    @AfterEach
    void closeFile() {
        if (file != null && file.isOpen()) {
            file.release();
        }
    }

    @ParameterizedTest(name = "chunks of {0} bytes")
    @ValueSource(ints = {1, 7, 256, 40_000, 1 << 20})
    void run_betweenOrdinaryFrames_decodesAsOneBufferResponsePerStoredBuffer(int chunkSize) throws IOException {
        int[] sizes = {5000, TestBuffers.SEGMENT_SIZE, 1, 300};
        byte[] wire = channels.encode(
                data(KNOWN, 9, 100),
                run(KNOWN, 10, 4, sizes),
                data(KNOWN, 14, 17));

        channels.feed(client, wire, chunkSize);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(2 + sizes.length, decoded.size());
        for (int i = 0; i < decoded.size(); i++) {
            BufferResponse response = (BufferResponse) decoded.get(i);
            int sequenceNumber = 9 + i;
            assertEquals(sequenceNumber, response.sequenceNumber(), "order");
            assertEquals(KNOWN, response.receiverId());
            assertEquals(DataType.DATA_BUFFER, response.dataType());
            if (i >= 1 && i <= sizes.length) {
                assertEquals(sizes[i - 1], response.bufferSize());
                assertEquals(4 + sizes.length - i, response.backlog(), "the rest of the run, then the sender's backlog");
            }
            assertArrayEquals(TestBuffers.pattern(response.bufferSize(), sequenceNumber),
                    TestBuffers.readableBytes(response.buffer()), "payload of " + response);
            response.releaseBuffer();
        }
        assertFalse(client.finishAndReleaseAll());
        assertEquals(receiving.handedOut().size(), receiving.recycled());
        assertEquals(0, file.references(), "the region's reference of the file was released once written");
        channels.assertNettyMemoryReleased();
    }

    @Test
    void runForAnUnknownReceiver_skipsEveryBuffer_andTheFramesAfterItDecode() throws IOException {
        byte[] wire = channels.encode(run(UNKNOWN, 0, 0, 700, 12, TestBuffers.SEGMENT_SIZE), data(KNOWN, 3, 64));

        channels.feed(client, wire, 333);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(4, decoded.size());
        int[] sizes = {700, 12, TestBuffers.SEGMENT_SIZE};
        for (int i = 0; i < 3; i++) {
            BufferResponse skipped = (BufferResponse) decoded.get(i);
            assertNull(skipped.buffer(), "no buffer for an unknown receiver");
            assertEquals(i, skipped.sequenceNumber());
            assertEquals(sizes[i], skipped.bufferSize());
        }
        BufferResponse after = (BufferResponse) decoded.get(3);
        assertArrayEquals(TestBuffers.pattern(64, 3), TestBuffers.readableBytes(after.buffer()));
        after.releaseBuffer();
        assertEquals(List.of(UNKNOWN, UNKNOWN, UNKNOWN, KNOWN), receiving.pooledRequests());
        assertFalse(client.finishAndReleaseAll());
        channels.assertNettyMemoryReleased();
    }

    @Test
    void storedHeaderOfAnEvent_isACorruptFrame_andTheHalfDecodedRunLeavesNothingBehind() throws IOException {
        byte[] wire = channels.encode(run(KNOWN, 0, 0, 100, 200));
        // The second stored header (after frame + run header + a stored header + 100 bytes) claims an event.
        wire[Frame.HEADER_LENGTH + StoredBuffersResponse.HEADER_LENGTH + FileSpan.STORED_HEADER_BYTES + 100 + 4] = 1;

        CorruptFrameException e = assertThrows(CorruptFrameException.class, () -> channels.feed(client, wire, 50));

        assertTrue(e.getMessage().contains("bad stored buffer header (length 200, kind 1"), e.getMessage());
        List<Object> decoded = CodecChannels.readInbound(client);
        assertEquals(1, decoded.size(), "the first buffer was whole before the bad header");
        ((BufferResponse) decoded.get(0)).releaseBuffer();
        assertFalse(client.finishAndReleaseAll());
        assertEquals(receiving.handedOut().size(), receiving.recycled());
        channels.assertNettyMemoryReleased();
    }

    @Test
    void storedLengthsThatDoNotFillTheRun_areACorruptFrame() throws IOException {
        byte[] wire = channels.encode(run(KNOWN, 0, 0, 100, 200));
        // The last buffer claims 199 bytes where 200 are left in the run.
        ByteBuffer.wrap(wire).putInt(Frame.HEADER_LENGTH + StoredBuffersResponse.HEADER_LENGTH
                + FileSpan.STORED_HEADER_BYTES + 100, 199);

        CorruptFrameException e = assertThrows(CorruptFrameException.class,
                () -> channels.feed(client, wire, wire.length));

        assertTrue(e.getMessage().contains("length 199") && e.getMessage().contains("200 stored bytes and 1 buffers"),
                e.getMessage());
        CodecChannels.readInbound(client).forEach(message -> ((BufferResponse) message).releaseBuffer());
        client.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    @Test
    void runToAReceiverThatDecompresses_isACodecMismatch_namingTheOption() throws IOException {
        EmbeddedChannel lz4Client = channels.channel(new ClientMessageDecoder(receiving, CodecChannels.MAX_FRAME_LENGTH,
                new BufferCompressor(), null));
        byte[] wire = channels.encode(run(KNOWN, 0, 0, 10));

        CorruptFrameException e = assertThrows(CorruptFrameException.class,
                () -> channels.feed(lz4Client, wire, wire.length));

        assertTrue(e.getMessage().startsWith("compression codec mismatch: the producer sends data buffers with"
                + " shuffle.compression.codec=none, but this environment has shuffle.compression.codec=lz4"),
                e.getMessage());
        lz4Client.finishAndReleaseAll();
        client.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    /**
     * A stored buffer whose bytes changed after its checksum was computed (on disk, between the file and the
     * receiver) is never handed on: the decoder recycles it and reports it, with the offset in the data file, in its
     * place; the buffers before and after it in the run, and the frames after the run, decode as usual. (A damaged
     * kind, flags or length is a corrupt frame, as before; the reader at the sender checks those too.)
     */
    @ParameterizedTest(name = "damaged at byte {0} of the second buffer")
    @ValueSource(ints = {FileSpan.CHECKSUM_OFFSET, FileSpan.STORED_HEADER_BYTES - 1, FileSpan.STORED_HEADER_BYTES,
            FileSpan.STORED_HEADER_BYTES + 299})
    void storedBufferThatFailsItsChecksum_isRecycledAndReported_andTheRestDecodes(int byteOfBuffer)
            throws IOException {
        int[] sizes = {100, 300, 50};
        long damaged = StoredRuns.offsetOf(1, sizes);
        StoredBuffersResponse damagedRun = runs.run(KNOWN, 0, 0, true, damaged + byteOfBuffer, sizes);
        file = runs.lastFile();
        byte[] wire = channels.encode(damagedRun, data(KNOWN, 3, 64));

        channels.feed(client, wire, 97);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(4, decoded.size(), "two good buffers, the report, the frame after the run: " + decoded);
        CorruptStoredBuffer report = (CorruptStoredBuffer) decoded.get(1);
        assertEquals(KNOWN, report.receiverId());
        assertEquals(1, report.sequenceNumber());
        assertEquals(damaged, report.offset(), "where the buffer's header is in the data file");
        assertEquals(300, report.length());
        assertTrue(report.storedChecksum() != report.computedChecksum(), report.describe());
        for (int i : new int[] {0, 2, 3}) {
            BufferResponse good = (BufferResponse) decoded.get(i);
            int sequenceNumber = i == 3 ? 3 : i;
            assertArrayEquals(TestBuffers.pattern(good.bufferSize(), sequenceNumber),
                    TestBuffers.readableBytes(good.buffer()), "payload of " + good);
            good.releaseBuffer();
        }
        assertFalse(client.finishAndReleaseAll());
        assertEquals(receiving.handedOut().size(), receiving.recycled(), "the damaged buffer went back too");
        channels.assertNettyMemoryReleased();
    }

    /** A partition written without checksums (flags 0) is decoded without a check, as before checksums. */
    @Test
    void runWithoutChecksums_decodesUnchecked() throws IOException {
        int[] sizes = {100, 200};
        StoredBuffersResponse unchecked = runs.run(KNOWN, 0, 0, false, -1, sizes);
        file = runs.lastFile();

        channels.feed(client, channels.encode(unchecked), 1000);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(2, decoded.size());
        for (int i = 0; i < 2; i++) {
            BufferResponse response = (BufferResponse) decoded.get(i);
            assertArrayEquals(TestBuffers.pattern(sizes[i], i), TestBuffers.readableBytes(response.buffer()));
            response.releaseBuffer();
        }
        assertFalse(client.finishAndReleaseAll());
        channels.assertNettyMemoryReleased();
    }

    @Test
    void runLargerThanAnyRunTheReceiverAccepts_isRejectedByItsFrameHeader() {
        byte[] header = ByteBuffer.allocate(Frame.HEADER_LENGTH).putInt(Integer.MAX_VALUE).putInt(Frame.MAGIC)
                .put(Frame.VERSION).put(StoredBuffersResponse.ID).array();

        CorruptFrameException e = assertThrows(CorruptFrameException.class,
                () -> channels.feed(client, header, header.length));

        long limit = StoredBuffersResponse.maxFrameLength(CodecChannels.MAX_FRAME_LENGTH - BufferResponse.frameLength(0));
        assertEquals("frame length " + Integer.MAX_VALUE + " exceeds the decoder's limit of " + limit + " bytes",
                e.getMessage());
        client.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    /**
     * A run of stored buffers of the given sizes with their checksums, numbered from {@code firstSequenceNumber}
     * (each buffer's data is {@link TestBuffers#pattern} of its sequence number), written to a file and sent from it
     * as the server does.
     */
    private StoredBuffersResponse run(InputChannelId receiver, int firstSequenceNumber, int backlog, int... sizes)
            throws IOException {
        StoredBuffersResponse run = runs.run(receiver, firstSequenceNumber, backlog, sizes);
        file = runs.lastFile();
        return run;
    }

    private BufferResponse data(InputChannelId receiver, int sequenceNumber, int size) {
        return new BufferResponse(TestBuffers.dataBuffer(size, sequenceNumber, sending), receiver, sequenceNumber, 0,
                DataType.DATA_BUFFER, size);
    }
}
