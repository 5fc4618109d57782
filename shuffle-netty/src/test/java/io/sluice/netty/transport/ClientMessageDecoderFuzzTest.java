package io.sluice.netty.transport;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@link ClientMessageDecoder} with any byte stream, read whole and cut at arbitrary points, so that a
 * BufferResponse (header and payload) is split across reads at every offset the fuzzer finds.
 *
 * <p>Invariant: the stream decodes to BufferResponses and ErrorResponses until the first corrupt frame, which raises
 * {@link CorruptFrameException} and nothing else; the cut makes no difference to the messages or payload bytes;
 * an event carries a known event tag (so a BufferResponse of an event with 0 bytes or an unknown tag is a corrupt
 * frame); every network buffer the decoder took is either delivered or recycled; no ByteBuf leaks; no allocation (Netty's or
 * an event buffer) exceeds the frame limit. Receivers with an even id get buffers, odd ones are unknown, so payloads
 * are both copied and skipped. The corpus is in {@code ClientMessageDecoderFuzzTestInputs}.
 */
class ClientMessageDecoderFuzzTest {

    /** Small segments, so that payloads of a full segment and frames at the limit are within the fuzzer's reach. */
    static final int SEGMENT_SIZE = 1024;
    static final int MAX_FRAME_LENGTH = BufferResponse.frameLength(SEGMENT_SIZE);

    @FuzzTest(maxDuration = "5m")
    void anyBytes_decodeAlikeHoweverCut_orCorruptFrame_everyBufferDeliveredOrRecycled(byte[] input) {
        FuzzedStream stream = FuzzedStream.of(input);
        if (stream == null) {
            return;
        }
        TestNetworkBufferAllocator buffers = new TestNetworkBufferAllocator(SEGMENT_SIZE, id -> (id.lower() & 1) == 0);
        int[] largestEvent = {0};
        NetworkBufferAllocator recordingEvents = new NetworkBufferAllocator() {
            @Override
            public Buffer allocatePooledNetworkBuffer(io.sluice.netty.gate.InputChannelId receiverId) {
                return buffers.allocatePooledNetworkBuffer(receiverId);
            }

            @Override
            public Buffer allocateUnPooledNetworkBuffer(int size, DataType dataType) {
                largestEvent[0] = Math.max(largestEvent[0], size);
                return buffers.allocateUnPooledNetworkBuffer(size, dataType);
            }
        };

        stream.decodeWholeAndCut(() -> new ClientMessageDecoder(recordingEvents, MAX_FRAME_LENGTH),
                ClientMessageDecoderFuzzTest::describeAndRelease, MAX_FRAME_LENGTH);

        assertEquals(buffers.handedOut().size(), buffers.recycled(), "network buffers neither delivered nor recycled");
        assertTrue(largestEvent[0] <= MAX_FRAME_LENGTH, "an event buffer of " + largestEvent[0]
                + " bytes, beyond the frame limit " + MAX_FRAME_LENGTH);
    }

    /** The message and its payload bytes; a delivered buffer is checked against its header and recycled. */
    private static String describeAndRelease(Object message) {
        if (message instanceof BufferResponse response) {
            Buffer buffer = response.buffer();
            String payload = "";
            if (buffer != null) {
                assertEquals(response.bufferSize(), buffer.readableBytes(), response.toString());
                assertEquals(response.dataType().isBuffer(), buffer.isBuffer(), response.toString());
                payload = " " + HexFormat.of().formatHex(TestBuffers.readableBytes(buffer));
                if (!buffer.isBuffer()) {
                    EventSerializer.typeOf(buffer); // a valid message carries a valid event: a known tag
                }
            }
            response.releaseBuffer();
            assertTrue(response.bufferSize() > 0 || response.dataType().isBuffer(), "an empty event: " + response);
            return response + payload;
        }
        assertTrue(message instanceof ErrorResponse, "not a server-to-client message: " + message);
        return message.toString();
    }
}
