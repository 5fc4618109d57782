package io.sluice.api;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Builds the byte stream of a subpartition as {@link RecordFraming} defines it, for tests. */
final class FramedStream {

    private FramedStream() {
    }

    /** @return a record of {@code length} bytes whose content depends on {@code seed} */
    static byte[] record(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** @return the records framed one after another */
    static byte[] frame(List<byte[]> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] record : records) {
            for (int i = 0; i < RecordFraming.LENGTH_BYTES; i++) {
                out.write(RecordFraming.lengthByte(record.length, i));
            }
            out.write(record, 0, record.length);
        }
        return out.toByteArray();
    }

    /** @return the stream cut at the given offsets (ascending), e.g. cut(s, 2) = [s[0..2), s[2..)] */
    static List<byte[]> cut(byte[] stream, int... offsets) {
        List<byte[]> buffers = new ArrayList<>();
        int start = 0;
        for (int offset : offsets) {
            buffers.add(Arrays.copyOfRange(stream, start, offset));
            start = offset;
        }
        buffers.add(Arrays.copyOfRange(stream, start, stream.length));
        return buffers;
    }

    /** @return the stream cut into buffers of {@code size} bytes (the last one may be shorter) */
    static List<byte[]> cutEvery(byte[] stream, int size) {
        List<byte[]> buffers = new ArrayList<>();
        for (int start = 0; start < stream.length; start += size) {
            buffers.add(Arrays.copyOfRange(stream, start, Math.min(stream.length, start + size)));
        }
        return buffers;
    }
}
