package io.sluice.netty.partition;

import io.sluice.api.ResultPartitionId;

/**
 * A run of consecutive data buffers of one subpartition that stay in their file: the sender ships the run's stored
 * bytes straight from the file to the socket (one sendfile for the whole run) instead of reading them into memory,
 * and the receiver splits them into buffers again. Immutable.
 *
 * <p>The stored bytes are {@code buffers} stored buffers back to back, each as a blocking partition's data file holds
 * it and as the wire carries it: {@value #STORED_HEADER_BYTES} header bytes ({@code int length | byte kind (0 =
 * data) | byte flags (0, or {@value #FLAG_CHECKSUM}: checksummed) | short 0 | int crc32c}, big-endian) and then
 * {@code length} bytes of data. The receiver verifies the checksum ({@link StoredChecksum}), which the sender never
 * looked at: its bytes went from the file to the socket. Only uncompressed data buffers are ever part of a span;
 * events and compressed buffers are read into memory.
 *
 * <p>Ownership: the span holds one reference of {@code file} (the reader's one open handle of the data file, shared
 * by all its spans); whoever takes the span releases that reference once the bytes are written or dropped.
 *
 * @param file                the reader's open handle of the partition's data file; one reference is the taker's
 * @param position            where the first buffer's stored header starts in the data file (each buffer's checksum
 *                            covers its offset there)
 * @param length              the stored bytes of the whole run, headers included
 * @param buffers             how many buffers the run holds, at least one; each takes one credit
 * @param dataBytes           the run's data bytes without the stored headers (for the byte counters)
 * @param isDataAvailable     whether another element can be read right now
 * @param buffersInBacklog    data buffers still to come after the run
 * @param nextIsEvent         whether the next element is an event
 * @param firstSequenceNumber the position of the run's first buffer in the subpartition's output; the others follow
 */
public record FileSpan(SharedFileChannel file, long position, long length, int buffers, long dataBytes,
                       boolean isDataAvailable, int buffersInBacklog, boolean nextIsEvent, int firstSequenceNumber) {

    /** The header before each stored buffer's data. */
    public static final int STORED_HEADER_BYTES = 12;
    /** The stored header's kind of a data buffer. */
    public static final byte KIND_DATA = 0;
    /** The stored header's flag of an lz4-compressed buffer. */
    public static final byte FLAG_COMPRESSED = 1;
    /** The stored header's flag of a buffer whose header ends in its CRC32C ({@link StoredChecksum}). */
    public static final byte FLAG_CHECKSUM = 2;
    /** Where in the stored header the checksum is (the header's bytes before it are what the checksum covers). */
    public static final int CHECKSUM_OFFSET = 8;

    /** The name of the data file of {@code partition} (in a directory of the producer's shuffle.tmp-dirs). */
    public static String dataFileName(ResultPartitionId partition) {
        return partition + ".data";
    }
}
