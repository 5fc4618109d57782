package io.sluice.bench.jmh;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * How a benchmark's producers hand records to {@code emitRecord}, and whether the consumers look at them. The
 * library's cost per record depends on this shape, so the benchmarks can run the shapes engines use:
 * <ul>
 *   <li>the record buffer: one reused heap ByteBuffer ({@code heap}), one reused direct ByteBuffer
 *       ({@code direct}), or a new heap ByteBuffer for every record ({@code heap-new}, what a serializer that
 *       returns a fresh buffer per record does);</li>
 *   <li>the payload: all zero bytes and only counted by the consumer ({@code fixed}), or a sequence number per
 *       (producer, subpartition) written into the first 8 bytes of every record and checked by the consumer
 *       ({@code sequenced}, what an engine's verifying job does; needs records of at least 8 bytes).</li>
 * </ul>
 * Immutable.
 */
final class RecordShape {

    /** Where a producer's record bytes live. */
    enum RecordBuffer {
        /** One heap ByteBuffer, reused for every record. */
        HEAP,
        /** One direct ByteBuffer, reused for every record. */
        DIRECT,
        /** A new heap ByteBuffer for every record. */
        HEAP_NEW;

        /**
         * @param name heap, direct or heap-new
         * @throws IllegalArgumentException listing the names when there is none of that name
         */
        static RecordBuffer named(String name) {
            try {
                return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("record buffer '" + name + "' is not one of heap, direct, heap-new",
                        e);
            }
        }

        /** A buffer of {@code bytes} zero bytes of this kind. */
        ByteBuffer allocate(int bytes) {
            return this == DIRECT ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes);
        }
    }

    /** The shape the JMH suite always used: one reused heap buffer of zero bytes, only counted. */
    static final RecordShape FIXED_HEAP = new RecordShape(RecordBuffer.HEAP, false);

    final RecordBuffer buffer;
    final boolean sequenced;

    RecordShape(RecordBuffer buffer, boolean sequenced) {
        this.buffer = buffer;
        this.sequenced = sequenced;
    }

    /**
     * @param buffer heap, direct or heap-new
     * @param payload fixed or sequenced
     * @param recordBytes the records' size, at least 8 when sequenced
     * @throws IllegalArgumentException for an unknown name or records too small to carry a sequence number
     */
    static RecordShape of(String buffer, String payload, int recordBytes) {
        boolean sequenced;
        switch (payload) {
            case "fixed":
                sequenced = false;
                break;
            case "sequenced":
                sequenced = true;
                break;
            default:
                throw new IllegalArgumentException("payload '" + payload + "' is not fixed or sequenced");
        }
        if (sequenced && recordBytes < Long.BYTES) {
            throw new IllegalArgumentException("sequenced records need at least 8 bytes, not " + recordBytes);
        }
        return new RecordShape(RecordBuffer.named(buffer), sequenced);
    }
}
