package io.sluice.tests.support;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The order-sensitive checksum of a stream of records, with their count and bytes: the producer and the consumer
 * of a subpartition each keep one, and the two must be equal at the end. Each record's length goes into the
 * checksum too, so empty records and record boundaries count. Not thread-safe: one per producer or consumer thread.
 */
public final class StreamDigest {

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer length = ByteBuffer.allocate(Integer.BYTES); // reused for every record
    private long records;
    private long bytes;

    /**
     * Adds one record; no allocation.
     *
     * @param record its bytes from position to limit, left as they were
     */
    public void add(ByteBuffer record) {
        int size = record.remaining();
        length.clear();
        length.putInt(size).flip();
        crc.update(length);
        int start = record.position();
        crc.update(record);
        record.position(start);
        records++;
        bytes += size;
    }

    /** @return the records added so far */
    public long records() {
        return records;
    }

    /** @return the bytes of the records added so far */
    public long bytes() {
        return bytes;
    }

    /** @return count, bytes and checksum now, as a value to compare */
    public Summary summary() {
        return new Summary(records, bytes, crc.getValue());
    }

    /**
     * What a stream's digest came to.
     *
     * @param records how many records
     * @param bytes their bytes, without framing
     * @param crc32c the CRC32C of every record's 4-byte length and bytes, in order
     */
    public record Summary(long records, long bytes, long crc32c) {
    }
}
