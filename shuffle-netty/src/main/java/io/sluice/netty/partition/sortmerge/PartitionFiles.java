package io.sluice.netty.partition.sortmerge;

import io.sluice.api.ResultPartitionId;
import io.sluice.netty.partition.FileSpan;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The on-disk layout of one blocking partition: a data file and an index file (docs/batch.md draws them).
 *
 * <pre>
 * data file:  region 0 | region 1 | ...
 *   region:   the buffers of subpartition 0, then of subpartition 1, ... (a broadcast region: one run of buffers
 *             that every subpartition reads)
 *   buffer:   int storedLength | byte kind (0 data, 1 event) | byte flags (1 = lz4-compressed) | short 0 | bytes
 * index file: int magic "SLIX" | int version | int subpartitions | int 0
 *             then per region, per subpartition: long offset | long length   (of its buffers in the data file)
 * </pre>
 * All numbers big-endian. A subpartition's stream is the concatenation of its spans over all regions, framed as
 * {@link io.sluice.api.RecordFraming} says; a record may continue in the next region. Events (the engine's
 * {@code broadcastEvent}) are stored once per region like broadcast records; the end of the partition is not stored.
 *
 * <p>Stateless; any thread.
 */
final class PartitionFiles {

    static final int INDEX_MAGIC = 0x534C4958;
    static final int INDEX_VERSION = 1;
    static final int INDEX_HEADER_BYTES = 16;
    static final int INDEX_ENTRY_BYTES = 2 * Long.BYTES;
    /** The stored header; file spans carry it over the wire as it is (see {@link FileSpan}). */
    static final int BUFFER_HEADER_BYTES = FileSpan.STORED_HEADER_BYTES;
    static final byte KIND_DATA = FileSpan.KIND_DATA;
    static final byte KIND_EVENT = 1;
    static final byte FLAG_COMPRESSED = FileSpan.FLAG_COMPRESSED;

    private PartitionFiles() {
    }

    static Path dataFile(Path directory, ResultPartitionId id) {
        return directory.resolve(id + ".data");
    }

    static Path indexFile(Path directory, ResultPartitionId id) {
        return directory.resolve(id + ".index");
    }

    /** Position in the index file of the entry of {@code subpartition} in {@code region}. */
    static long indexEntryPosition(int region, int subpartitions, int subpartition) {
        return INDEX_HEADER_BYTES + ((long) region * subpartitions + subpartition) * INDEX_ENTRY_BYTES;
    }

    /** Writes a buffer header into {@code header} (cleared, then flipped for reading). */
    static void writeBufferHeader(ByteBuffer header, int storedLength, boolean isEvent, boolean compressed) {
        header.clear();
        header.putInt(storedLength);
        header.put(isEvent ? KIND_EVENT : KIND_DATA);
        header.put(compressed ? FLAG_COMPRESSED : 0);
        header.putShort((short) 0);
        header.flip();
    }
}
