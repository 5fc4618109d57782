package io.sluice.netty.partition.sortmerge;

import io.sluice.api.ResultPartitionId;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.StoredChecksum;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The on-disk layout of one blocking partition: a data file and an index file (docs/batch.md draws them).
 *
 * <pre>
 * data file:  region 0 | region 1 | ...
 *   region:   the buffers of subpartition 0, then of subpartition 1, ... (a broadcast region: one run of buffers
 *             that every subpartition reads)
 *   buffer:   int storedLength | byte kind (0 data, 1 event) | byte flags (1 = lz4-compressed, 2 = checksummed)
 *             | short 0 | int crc32c | bytes
 * index file: int magic "SLIX" | int version 2 | int subpartitions | int flags (1 = buffers checksummed)
 *             | int crc32c                                                           (header)
 *             then per region, per subpartition: long offset | long length | int buffers | int crc32c
 *                                                (of its buffers in the data file)   (entries)
 *             then per subpartition: long dataBuffers | long dataBytes | int crc32c  (totals, written at finish)
 * </pre>
 * All numbers big-endian. A buffer's checksum (when its flag says so) covers its offset in the data file, its
 * header's first 8 bytes and its stored bytes ({@link StoredChecksum#ofBuffer}); the header's, an entry's and a
 * total's cover their position in the index file and their bytes before the checksum
 * ({@link StoredChecksum#ofRecord}). A subpartition's totals count its data buffers and their bytes as the consumer
 * gets them (decompressed), broadcast ones included; its reader checks what it read against them and sends them with
 * the end of the subpartition, so that the consumer checks what arrived too.
 *
 * <p>A subpartition's stream is the concatenation of its spans over all regions, framed as
 * {@link io.sluice.api.RecordFraming} says; a record may continue in the next region. Events (the engine's
 * {@code broadcastEvent}) are stored once per region like broadcast records; the end of the partition is not stored.
 *
 * <p>Stateless; any thread.
 */
final class PartitionFiles {

    static final int INDEX_MAGIC = 0x534C4958;
    /** Version 1 had neither checksums nor totals; a reader of this version refuses its files. */
    static final int INDEX_VERSION = 2;
    static final int INDEX_HEADER_BYTES = 20;
    /** The index header's flag: every buffer in the data file carries its checksum. */
    static final int INDEX_FLAG_CHECKSUMS = 1;
    static final int INDEX_ENTRY_BYTES = 2 * Long.BYTES + 2 * Integer.BYTES;
    static final int TOTALS_BYTES = 2 * Long.BYTES + Integer.BYTES;
    /** The stored header; file spans carry it over the wire as it is (see {@link FileSpan}). */
    static final int BUFFER_HEADER_BYTES = FileSpan.STORED_HEADER_BYTES;
    static final int BUFFER_CHECKSUM_OFFSET = FileSpan.CHECKSUM_OFFSET;
    static final byte KIND_DATA = FileSpan.KIND_DATA;
    static final byte KIND_EVENT = 1;
    static final byte FLAG_COMPRESSED = FileSpan.FLAG_COMPRESSED;
    static final byte FLAG_CHECKSUM = FileSpan.FLAG_CHECKSUM;

    private PartitionFiles() {
    }

    static Path dataFile(Path directory, ResultPartitionId id) {
        return directory.resolve(FileSpan.dataFileName(id));
    }

    static Path indexFile(Path directory, ResultPartitionId id) {
        return directory.resolve(id + ".index");
    }

    /** Position in the index file of the entry of {@code subpartition} in {@code region}. */
    static long indexEntryPosition(int region, int subpartitions, int subpartition) {
        return INDEX_HEADER_BYTES + ((long) region * subpartitions + subpartition) * INDEX_ENTRY_BYTES;
    }

    /** Position in the index file of the totals of {@code subpartition}, after the entries of every region. */
    static long totalsPosition(int regions, int subpartitions, int subpartition) {
        return indexEntryPosition(regions, subpartitions, 0) + (long) subpartition * TOTALS_BYTES;
    }

    /** The size of a finished partition's index file. */
    static long indexFileBytes(int regions, int subpartitions) {
        return totalsPosition(regions, subpartitions, subpartitions);
    }

    /**
     * Writes a buffer header into {@code header} (cleared, then flipped for reading), with the checksum of the
     * buffer's header and {@code payload} when {@code checksum} is not null (else the checksum field is 0).
     *
     * @param offset  where the header goes in the data file
     * @param payload the stored bytes that follow the header, position to limit (left as they were)
     */
    static void writeBufferHeader(ByteBuffer header, long offset, ByteBuffer payload, boolean isEvent,
                                  boolean compressed, StoredChecksum checksum) {
        header.clear();
        header.putInt(payload.remaining());
        header.put(isEvent ? KIND_EVENT : KIND_DATA);
        header.put((byte) ((compressed ? FLAG_COMPRESSED : 0) | (checksum != null ? FLAG_CHECKSUM : 0)));
        header.putShort((short) 0);
        header.putInt(checksum == null ? 0 : checksum.ofBuffer(offset, header.getLong(0), payload));
        header.flip();
    }

    /**
     * Ends the record that starts at {@code start} of {@code records} and goes to its position with its checksum
     * (the record's bytes and {@code position}, where it starts in its file).
     */
    static void sealRecord(ByteBuffer records, int start, long position, StoredChecksum checksum) {
        int end = records.position();
        int limit = records.limit();
        records.limit(end).position(start);
        int crc = checksum.ofRecord(position, records);
        records.limit(limit).position(end);
        records.putInt(crc);
    }

    /**
     * The checksum of the record of {@code length} bytes at position 0 of {@code records} (its own checksum, the
     * last 4 bytes, left out), which starts at {@code position} of its file. Position and limit are left as they
     * were.
     */
    static int recordChecksum(ByteBuffer records, int length, long position, StoredChecksum checksum) {
        int oldPosition = records.position();
        int oldLimit = records.limit();
        records.limit(length - Integer.BYTES).position(0);
        int crc = checksum.ofRecord(position, records);
        records.limit(oldLimit).position(oldPosition);
        return crc;
    }
}
