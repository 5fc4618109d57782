package io.sluice.netty.partition;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The CRC32C checksums of a blocking partition's files: of a stored buffer (its offset in the data file, the first
 * {@value FileSpan#CHECKSUM_OFFSET} bytes of its header, then its stored bytes) and of an index record (its position
 * in the index file, then its bytes). The position goes into the checksum so that a record or buffer that is intact
 * but in the wrong place (a misdirected write, a copied block) fails too. CRC32C because the JDK computes it with
 * the CPU's instruction (tens of GB/s), so the check costs little next to the disk and the copy.
 *
 * <p>Not thread-safe: each thread that computes checksums (a producer, the blocking I/O thread, an event loop) owns
 * its own instance. No allocation per call.
 */
public final class StoredChecksum {

    private final CRC32C crc = new CRC32C();

    /**
     * The checksum of a stored buffer.
     *
     * @param offset     where its header starts in the data file
     * @param headerWord the first 8 bytes of its header as one big-endian long (length, kind, flags, reserved)
     * @param stored     its stored bytes, from position to limit; position and limit are left as they were
     */
    public int ofBuffer(long offset, long headerWord, ByteBuffer stored) {
        crc.reset();
        updateLong(offset);
        updateLong(headerWord);
        int position = stored.position();
        crc.update(stored);
        stored.position(position);
        return (int) crc.getValue();
    }

    /**
     * The checksum of an index record.
     *
     * @param position where the record starts in its file
     * @param bytes    the record's bytes before its checksum, from position to limit; left as they were
     */
    public int ofRecord(long position, ByteBuffer bytes) {
        crc.reset();
        updateLong(position);
        int start = bytes.position();
        crc.update(bytes);
        bytes.position(start);
        return (int) crc.getValue();
    }

    private void updateLong(long value) {
        for (int shift = Long.SIZE - Byte.SIZE; shift >= 0; shift -= Byte.SIZE) {
            crc.update((int) (value >>> shift));
        }
    }
}
