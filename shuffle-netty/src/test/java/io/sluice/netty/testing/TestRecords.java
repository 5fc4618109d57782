package io.sluice.netty.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.RecordFraming;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Records whose bytes tell where they came from, and a reference decoder of the framed stream
 * ({@link RecordFraming}: a 4-byte big-endian length, then the bytes) for tests that read raw buffers.
 *
 * <p>Stateless; any thread.
 */
public final class TestRecords {

    private TestRecords() {
    }

    /**
     * The record {@code sequence} of stream {@code stream}: {@code length} bytes, each a function of the stream,
     * the sequence number and the position, so that a swapped, lost or corrupted record is seen.
     */
    public static byte[] recordBytes(int stream, int sequence, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (stream * 31 + sequence * 7 + i);
        }
        return bytes;
    }

    /** {@link #recordBytes} in a heap buffer positioned at 0. */
    public static ByteBuffer record(int stream, int sequence, int length) {
        return ByteBuffer.wrap(recordBytes(stream, sequence, length));
    }

    /** A copy of {@code buffer}'s remaining bytes; its position is left alone. */
    public static byte[] bytesOf(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** The framed stream of {@code records}, as a writer lays it out. */
    public static byte[] framed(List<byte[]> records) {
        int size = 0;
        for (byte[] record : records) {
            size += RecordFraming.LENGTH_BYTES + record.length;
        }
        ByteBuffer stream = ByteBuffer.allocate(size);
        for (byte[] record : records) {
            stream.putInt(record.length).put(record);
        }
        return stream.array();
    }

    /** Splits a complete framed stream into its records; fails on a stream that stops inside a record. */
    public static List<byte[]> decodeFramed(byte[] stream) {
        List<byte[]> records = new ArrayList<>();
        ByteBuffer source = ByteBuffer.wrap(stream);
        while (source.hasRemaining()) {
            assertTrue(source.remaining() >= RecordFraming.LENGTH_BYTES,
                    "stream ends inside a record length at byte " + source.position());
            int length = source.getInt();
            assertTrue(length >= 0 && length <= source.remaining(), "record of " + length + " bytes at byte "
                    + (source.position() - RecordFraming.LENGTH_BYTES) + " runs past the stream's end");
            byte[] record = new byte[length];
            source.get(record);
            records.add(record);
        }
        assertEquals(stream.length, source.position());
        return records;
    }
}
