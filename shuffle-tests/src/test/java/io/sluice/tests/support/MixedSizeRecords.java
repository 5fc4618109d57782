package io.sluice.tests.support;

import java.nio.ByteBuffer;

/**
 * The records of one stream (one subpartition), with sizes mixed from 0 bytes to three segments, fully determined
 * by (seed, stream): a producer generates them with {@link #next()}, and its consumer, holding an instance with the
 * same seed and stream, checks each arriving record with {@link #expectNext(ByteBuffer)}.
 *
 * <p>Sizes, drawn per record (weights out of 64): 4 empty records; 28 of 1..64 bytes, so record lengths often
 * straddle buffer ends; 22 of 65 bytes..2 KiB; 8 of 2 KiB..one segment; 2 of one to three segments, which span two to
 * four buffers. A record's bytes are a window of a random pattern, so generating one copies nothing.
 *
 * <p>Not thread-safe: one instance per producer or consumer thread.
 */
public final class MixedSizeRecords {

    /** Size classes are picked from 64 equally likely slots; the thresholds below split them as documented. */
    private static final int SLOTS = 64;
    private static final int EMPTY_BELOW = 4;
    private static final int TINY_BELOW = 32;
    private static final int SMALL_BELOW = 54;
    private static final int MEDIUM_BELOW = 62;
    private static final int TINY_MAX = 64;
    private static final int SMALL_MAX = 2048;
    /** Seed of the payload pattern: the same bytes for every stream and run. */
    private static final long PATTERN_SEED = 0x5EEDL;

    private final int stream;
    private final int segmentSize;
    private final SplitMix64 random;
    private final byte[] pattern;
    private final ByteBuffer window; // over pattern; repositioned for every record
    private long sequence;

    /**
     * @param stream which stream, e.g. the subpartition index; different streams get different records
     * @param seed the run's seed; producer and consumer use the same
     * @param segmentSize the environment's segment size (more than {@value #SMALL_MAX} bytes)
     */
    public MixedSizeRecords(int stream, long seed, int segmentSize) {
        if (segmentSize <= SMALL_MAX) {
            throw new IllegalArgumentException("segment size " + segmentSize + " must exceed " + SMALL_MAX);
        }
        this.stream = stream;
        this.segmentSize = segmentSize;
        this.random = new SplitMix64(seed ^ (0x9E3779B97F4A7C15L * (stream + 1)));
        // Twice the largest record, so a record's window can start anywhere in the first half.
        this.pattern = new byte[2 * maxSize(segmentSize)];
        SplitMix64 patternRandom = new SplitMix64(PATTERN_SEED);
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = (byte) patternRandom.nextLong();
        }
        this.window = ByteBuffer.wrap(pattern);
    }

    /**
     * @param segmentSize the environment's segment size
     * @return the largest record a stream can hold: three segments
     */
    public static int maxSize(int segmentSize) {
        return 3 * segmentSize;
    }

    /** @return how many records were generated (or expected) so far */
    public long count() {
        return sequence;
    }

    /**
     * Generates the next record; no allocation.
     *
     * @return its bytes from position to limit; the same buffer every call, valid until the next call, not to be
     *     written to
     */
    public ByteBuffer next() {
        int size = nextSize();
        int offset = random.nextInt(pattern.length - size + 1);
        window.clear();
        window.position(offset);
        window.limit(offset + size);
        sequence++;
        return window;
    }

    /**
     * Checks that {@code actual} is the next record of this stream.
     *
     * @param actual the record that arrived, from position to limit; left as it was
     * @throws AssertionError naming the stream, the record's number, and what differs
     */
    public void expectNext(ByteBuffer actual) {
        long number = sequence;
        ByteBuffer expected = next();
        if (actual.remaining() != expected.remaining()) {
            throw new AssertionError("stream " + stream + ", record " + number + ": expected " + expected.remaining()
                    + " bytes, got " + actual.remaining() + " (a record lost, duplicated or reordered)");
        }
        int differsAt = actual.mismatch(expected);
        if (differsAt >= 0) {
            throw new AssertionError("stream " + stream + ", record " + number + " (" + actual.remaining()
                    + " bytes): content differs from byte " + differsAt);
        }
    }

    private int nextSize() {
        long bits = random.nextLong();
        int slot = (int) (bits & (SLOTS - 1));
        int spread = (int) ((bits >>> 8) & Integer.MAX_VALUE);
        if (slot < EMPTY_BELOW) {
            return 0;
        }
        if (slot < TINY_BELOW) {
            return 1 + spread % TINY_MAX;
        }
        if (slot < SMALL_BELOW) {
            return TINY_MAX + 1 + spread % (SMALL_MAX - TINY_MAX);
        }
        if (slot < MEDIUM_BELOW) {
            return SMALL_MAX + 1 + spread % (segmentSize - SMALL_MAX);
        }
        return segmentSize + 1 + spread % (maxSize(segmentSize) - segmentSize);
    }
}
