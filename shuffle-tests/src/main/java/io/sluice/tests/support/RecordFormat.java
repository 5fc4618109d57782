package io.sluice.tests.support;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Layout of a generated record, big-endian, offsets from the record's first byte:
 * <pre>
 *  0  int   channel           the stream the record belongs to
 *  4  long  sequence          0, 1, 2, ... within its channel
 * 12  long  timestampNanos    System.nanoTime() when it was generated (for latency)
 * 20  int   checksum          CRC32C of bytes [0, 20) and [24, end)
 * 24  ...   payload           deterministic bytes
 * </pre>
 * Stateless; any thread.
 */
public final class RecordFormat {

    /** Bytes before the payload; the smallest record there is. */
    public static final int HEADER_BYTES = 24;

    static final int CHANNEL = 0;
    static final int SEQUENCE = 4;
    static final int TIMESTAMP = 12;
    static final int CHECKSUM = 20;

    private RecordFormat() {
    }

    /** @return the channel of the record at {@code record.position()} */
    public static int channel(ByteBuffer record) {
        return record.getInt(record.position() + CHANNEL);
    }

    /** @return the sequence number of the record at {@code record.position()} */
    public static long sequence(ByteBuffer record) {
        return record.getLong(record.position() + SEQUENCE);
    }

    /** @return the generation time ({@link System#nanoTime()}) of the record at {@code record.position()} */
    public static long timestampNanos(ByteBuffer record) {
        return record.getLong(record.position() + TIMESTAMP);
    }

    /** @return the checksum the record carries */
    public static int carriedChecksum(ByteBuffer record) {
        return record.getInt(record.position() + CHECKSUM);
    }

    /**
     * Computes the checksum of the record from its position to its limit, leaving both as they were.
     *
     * @param record at least {@link #HEADER_BYTES} bytes
     * @param crc a scratch checksum, reset here; one per thread
     * @return what {@link #carriedChecksum} must be
     */
    public static int computeChecksum(ByteBuffer record, CRC32C crc) {
        int start = record.position();
        int end = record.limit();
        crc.reset();
        // Narrow the window instead of slicing: no allocation per record.
        record.limit(start + CHECKSUM);
        crc.update(record);
        record.limit(end).position(start + HEADER_BYTES);
        crc.update(record);
        record.position(start);
        return (int) crc.getValue();
    }
}
