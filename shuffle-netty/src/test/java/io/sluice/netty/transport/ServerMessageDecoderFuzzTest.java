package io.sluice.netty.transport;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@link ServerMessageDecoder} with any byte stream, read whole and cut at arbitrary points.
 *
 * <p>Invariant: the stream decodes to valid messages, each of which encodes back to exactly the bytes it came from,
 * until the first corrupt frame, which raises {@link CorruptFrameException} and nothing else; the cut makes no
 * difference; no ByteBuf leaks and no allocation exceeds what the frame limit explains (see {@link FuzzedStream}).
 * The corpus in {@code ServerMessageDecoderFuzzTestInputs} holds a valid stream of every client message and
 * corrupt variants of it; {@code mvn verify} replays it, docs/reliability.md ("Fuzzing") says how to fuzz longer.
 */
class ServerMessageDecoderFuzzTest {

    /** Small enough that the fuzzer's inputs reach and pass it (the server's own is 1 MiB). */
    static final int MAX_FRAME_LENGTH = 512;
    /** The cumulation holds at most a frame and a read, and grows by doubling. */
    private static final int ALLOCATION_LIMIT = 2 * (MAX_FRAME_LENGTH + FuzzedStream.MAX_CUT);

    private final CodecChannels channels = new CodecChannels();

    @FuzzTest(maxDuration = "5m")
    void anyBytes_decodeToMessagesThatEncodeBack_orCorruptFrame(byte[] input) {
        FuzzedStream stream = FuzzedStream.of(input);
        if (stream == null) {
            return;
        }
        List<NettyMessage> decoded = new ArrayList<>();
        FuzzedStream.Outcome outcome = stream.decodeWholeAndCut(() -> new ServerMessageDecoder(MAX_FRAME_LENGTH),
                message -> {
                    decoded.add((NettyMessage) message);
                    return message.toString();
                }, ALLOCATION_LIMIT);

        List<NettyMessage> fromWholeRead = decoded.subList(0, outcome.messages().size());
        byte[] encoded = channels.encode(fromWholeRead.toArray(NettyMessage[]::new));
        byte[] wire = stream.wire();
        assertTrue(encoded.length <= wire.length, "decoded more than was sent: " + fromWholeRead);
        assertArrayEquals(Arrays.copyOf(wire, encoded.length), encoded, "a decoded message does not encode back to "
                + "its bytes: " + fromWholeRead);
        if (outcome.corruptFrame() == null) {
            assertTrue(wire.length - encoded.length < MAX_FRAME_LENGTH, (wire.length - encoded.length)
                    + " bytes left undecoded without an error: more than a frame can hold");
        }
    }
}
