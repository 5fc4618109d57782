package io.sluice.tests.support;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Generates the records of one channel: sequence numbers 0, 1, 2, ..., sizes drawn from a
 * {@link RecordSizes}, payload bytes and sizes fully determined by (seed, channel, sequence),
 * each record stamped and checksummed as {@link RecordFormat} lays out.
 * Owned by one producer thread; not thread-safe.
 */
public final class RecordGenerator {

    /** Payload source; a power of two so an offset is a mask, small enough to stay in L2 cache. */
    private static final int PATTERN_BYTES = 64 * 1024;
    private static final byte[] PATTERN = pattern();

    private final int channel;
    private final RecordSizes sizes;
    private final ByteBuffer record; // reused for every record, capacity sizes.max()
    private final CRC32C crc = new CRC32C();
    private long randomState;
    private long sequence;
    private long corruptSequence = -1;

    /**
     * @param channel the channel every record carries
     * @param seed with the channel, selects sizes and payloads; the same seed gives the same records
     * @param sizes the record sizes, each at least {@link RecordFormat#HEADER_BYTES}
     * @throws IllegalArgumentException when a size is below the header
     */
    public RecordGenerator(int channel, long seed, RecordSizes sizes) {
        if (sizes.min() < RecordFormat.HEADER_BYTES) {
            throw new IllegalArgumentException("record size " + sizes.min() + " (of '" + sizes + "') is too small: a record carries a "
                    + RecordFormat.HEADER_BYTES + "-byte header (channel, sequence, timestamp, checksum), so use at least "
                    + RecordFormat.HEADER_BYTES);
        }
        this.channel = channel;
        this.sizes = sizes;
        this.record = ByteBuffer.allocate(sizes.max());
        this.randomState = seed ^ (channel * 0x9E3779B97F4A7C15L);
    }

    /** @return the channel every record carries */
    public int channel() {
        return channel;
    }

    /** @return the sequence number the next record gets, which is also how many were generated */
    public long nextSequence() {
        return sequence;
    }

    /**
     * A testing aid: the record with this sequence number gets one payload byte (or, without a
     * payload, its timestamp) flipped after its checksum was computed, as if corrupted in transit.
     *
     * @param sequenceToCorrupt the record to damage
     */
    public void corruptRecord(long sequenceToCorrupt) {
        this.corruptSequence = sequenceToCorrupt;
    }

    /**
     * Writes the next record. No allocation.
     *
     * @param timestampNanos the time to stamp, normally {@link System#nanoTime()}
     * @return the record from position 0 to its size; the same buffer every call, valid until the next call
     */
    public ByteBuffer next(long timestampNanos) {
        int size = sizes.sizeFor(nextRandom());
        int offset = (int) nextRandom() & (PATTERN_BYTES - 1);
        byte[] bytes = record.array();
        for (int at = RecordFormat.HEADER_BYTES; at < size; ) {
            int chunk = Math.min(size - at, PATTERN_BYTES - offset);
            System.arraycopy(PATTERN, offset, bytes, at, chunk);
            at += chunk;
            offset = 0;
        }
        record.clear().limit(size);
        record.putInt(RecordFormat.CHANNEL, channel);
        record.putLong(RecordFormat.SEQUENCE, sequence);
        record.putLong(RecordFormat.TIMESTAMP, timestampNanos);
        record.putInt(RecordFormat.CHECKSUM, RecordFormat.computeChecksum(record, crc));
        if (sequence == corruptSequence) {
            int victim = size > RecordFormat.HEADER_BYTES ? size - 1 : RecordFormat.TIMESTAMP;
            bytes[victim] ^= 0x5A;
        }
        sequence++;
        return record;
    }

    /** SplitMix64: fast, stateless to copy, good enough to pick sizes and offsets. */
    private long nextRandom() {
        long z = (randomState += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static byte[] pattern() {
        byte[] bytes = new byte[PATTERN_BYTES];
        long state = 0x5EED_5EEDL;
        for (int i = 0; i < bytes.length; i++) {
            state = state * 6364136223846793005L + 1442695040888963407L; // 64-bit LCG (Knuth's MMIX constants)
            bytes[i] = (byte) (state >>> 56);
        }
        return bytes;
    }
}
