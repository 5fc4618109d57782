package io.sluice.api;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * The one definition of how records are laid into the byte stream of a subpartition, shared by
 * the writer (in the shuffle implementation) and {@link RecordReader}.
 *
 * <p>Each record is written as a {@value #LENGTH_BYTES}-byte big-endian length (the record's
 * size in bytes, 0 to {@value #MAX_RECORD_LENGTH}) immediately followed by the record's bytes.
 * Records follow each other without padding. The stream of one subpartition is cut into buffers
 * at arbitrary points: a buffer may end in the middle of a length or of a record's bytes, the
 * next buffer of the same subpartition continues exactly there, and a record may span any number
 * of buffers. A buffer never holds bytes of two subpartitions; events travel separately and are
 * never framed. A buffer may be empty. The stream of a subpartition that ends normally ends right
 * after a record's last byte.
 *
 * <p>Example: records {@code [A B C]} and {@code []} make the stream
 * {@code 00 00 00 03 A B C 00 00 00 00}, which may arrive as buffers {@code [00 00]} and
 * {@code [00 03 A B C 00 00 00 00]}.
 *
 * <p>Stateless; any thread.
 */
public final class RecordFraming {

    /** Bytes of the length that precedes every record. */
    public static final int LENGTH_BYTES = 4;

    /** Largest record: a length is a non-negative int. */
    public static final int MAX_RECORD_LENGTH = Integer.MAX_VALUE;

    /** Bits in a byte, for assembling the length byte by byte. */
    private static final int BITS_PER_BYTE = 8;

    private RecordFraming() {
    }

    /**
     * @param recordLength the record's size in bytes
     * @return the bytes the framed record occupies in the stream: length plus record
     */
    public static long framedLength(int recordLength) {
        return (long) LENGTH_BYTES + recordLength;
    }

    /**
     * Checks a record length for the stream.
     *
     * @param recordLength the record's size in bytes
     * @return {@code recordLength}, whose {@value #LENGTH_BYTES} big-endian bytes are the record's length prefix
     * @throws IllegalArgumentException when it is negative
     */
    public static int checkedLength(int recordLength) {
        if (recordLength < 0) {
            throw new IllegalArgumentException("a record length is 0 to " + MAX_RECORD_LENGTH + ", got "
                    + recordLength);
        }
        return recordLength;
    }

    /**
     * Writes a record's length prefix ({@value #LENGTH_BYTES} bytes, big-endian whatever the buffer's byte order) at
     * {@code target}'s position and advances it. For writers whose buffer has room for the whole length; a writer
     * whose buffer ends inside it writes {@link #lengthByte} by byte.
     *
     * @param target       where to write; at least {@value #LENGTH_BYTES} bytes remaining
     * @param recordLength the record's size in bytes
     * @throws IllegalArgumentException when the length is negative
     * @throws BufferOverflowException when fewer than {@value #LENGTH_BYTES} bytes remain
     */
    public static void putLength(ByteBuffer target, int recordLength) {
        checkedLength(recordLength);
        if (target.remaining() < LENGTH_BYTES) {
            throw new BufferOverflowException();
        }
        for (int i = 0; i < LENGTH_BYTES; i++) {
            target.put(lengthByte(recordLength, i));
        }
    }

    /**
     * Byte {@code index} of a record length as written into the stream, for a writer whose buffer
     * ends inside the length.
     *
     * @param recordLength the record's size in bytes
     * @param index 0 (most significant, written first) to {@code LENGTH_BYTES - 1}
     * @return the byte to write at that place
     */
    public static byte lengthByte(int recordLength, int index) {
        return (byte) (recordLength >>> (BITS_PER_BYTE * (LENGTH_BYTES - 1 - index)));
    }

    /**
     * Adds the next byte of a length read from the stream.
     *
     * @param partialLength the length assembled from the bytes before (0 before the first)
     * @param nextByte the next byte of the stream
     * @return the length assembled so far; complete after {@code LENGTH_BYTES} bytes
     */
    public static int appendLengthByte(int partialLength, byte nextByte) {
        return (partialLength << BITS_PER_BYTE) | (nextByte & 0xFF);
    }
}
