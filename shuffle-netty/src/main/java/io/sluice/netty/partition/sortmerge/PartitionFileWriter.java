package io.sluice.netty.partition.sortmerge;

import io.sluice.buffers.Buffer;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.partition.StoredChecksum;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Appends the regions of one blocking partition to its data file and their offsets to its index file, in the
 * layout of {@link PartitionFiles}, and at {@link #finish()} each subpartition's totals. Every index record carries
 * its checksum; every buffer too, unless the partition was made without ({@code shuffle.blocking.checksums}).
 *
 * <p>Owned by the partition's producer thread (under the partition's emit lock); not thread-safe. It only reads the
 * buffers it is given: the caller keeps and recycles them.
 */
final class PartitionFileWriter implements AutoCloseable {

    private final Path dataPath;
    private final Path indexPath;
    private final int subpartitions;
    private final FileChannel data;
    private final FileChannel index;
    /** lz4 for data buffers, or null. */
    private final BufferCompressor compressor;
    /** Checksums of the index records, always. */
    private final StoredChecksum checksum = new StoredChecksum();
    /** Checksums of the buffers: {@link #checksum}, or null when buffers are stored without. */
    private final StoredChecksum bufferChecksum;
    /** Per subpartition: data buffers and their bytes (decompressed) so far, broadcast ones included. */
    private final long[] dataBuffers;
    private final long[] dataBytes;
    private final ByteBuffer header = ByteBuffer.allocateDirect(PartitionFiles.BUFFER_HEADER_BYTES);
    /** Where compressed bytes go before they are written; null without compression. */
    private final ByteBuffer compressed;
    private final ByteBuffer indexEntries;
    private final ByteBuffer[] gather = new ByteBuffer[2];
    /**
     * Headers of the run being written without compression, one view per buffer into one direct buffer; made
     * once and grown to the largest run, so that no view is made per buffer written.
     */
    private ByteBuffer[] headers = headerViews(64);
    /** Header and payload of each buffer of that run, for one gathering write; grown with {@code headers}. */
    private ByteBuffer[] regionGather = new ByteBuffer[128];
    private long dataPosition;
    private int regions;

    /**
     * Creates (or truncates) both files and writes the index header.
     *
     * @param checksums whether every buffer carries its checksum (index records always do)
     * @throws IOException when a file cannot be created or written; nothing is left open then
     */
    PartitionFileWriter(Path dataPath, Path indexPath, int subpartitions, int segmentSize,
                        BufferCompressor compressor, boolean checksums) throws IOException {
        this.dataPath = dataPath;
        this.indexPath = indexPath;
        this.subpartitions = subpartitions;
        this.compressor = compressor;
        this.bufferChecksum = checksums ? checksum : null;
        this.dataBuffers = new long[subpartitions];
        this.dataBytes = new long[subpartitions];
        this.compressed = compressor == null ? null
                : ByteBuffer.allocateDirect(compressor.maxCompressedLength(segmentSize));
        this.indexEntries = ByteBuffer.allocate(subpartitions * PartitionFiles.INDEX_ENTRY_BYTES)
                .order(ByteOrder.BIG_ENDIAN);
        FileChannel openedData = null;
        try {
            openedData = FileChannel.open(dataPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            this.index = FileChannel.open(indexPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException | RuntimeException e) {
            if (openedData != null) {
                openedData.close();
            }
            throw e;
        }
        this.data = openedData;
        ByteBuffer indexHeader = ByteBuffer.allocate(PartitionFiles.INDEX_HEADER_BYTES);
        indexHeader.putInt(PartitionFiles.INDEX_MAGIC).putInt(PartitionFiles.INDEX_VERSION).putInt(subpartitions)
                .putInt(checksums ? PartitionFiles.INDEX_FLAG_CHECKSUMS : 0);
        PartitionFiles.sealRecord(indexHeader, 0, 0, checksum);
        indexHeader.flip();
        try {
            writeFully(index, indexHeader);
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    Path dataPath() {
        return dataPath;
    }

    Path indexPath() {
        return indexPath;
    }

    /** Regions written so far. */
    int regions() {
        return regions;
    }

    /** Bytes in the data file so far. */
    long dataBytes() {
        return dataPosition;
    }

    /**
     * Writes one region: the buffers of each subpartition in subpartition order ({@code spans[s]}), or, for a
     * broadcast region, the one run {@code broadcast} that every subpartition reads.
     *
     * @param spans     per subpartition, its buffers in order (events allowed); ignored when broadcast is not null
     * @param broadcast the buffers of a broadcast region, or null
     */
    void writeRegion(List<Buffer>[] spans, List<Buffer> broadcast) throws IOException {
        indexEntries.clear();
        if (broadcast != null) {
            long start = dataPosition;
            writeBuffers(broadcast);
            for (int s = 0; s < subpartitions; s++) {
                addEntry(s, start, broadcast);
            }
        } else {
            for (int s = 0; s < subpartitions; s++) {
                long start = dataPosition;
                writeBuffers(spans[s]);
                addEntry(s, start, spans[s]);
            }
        }
        indexEntries.flip();
        writeFully(index, indexEntries);
        regions++;
    }

    /** Adds the entry of {@code subpartition}'s span {@code buffers}, written from {@code start}, and counts them. */
    private void addEntry(int subpartition, long start, List<Buffer> buffers) {
        int entry = indexEntries.position();
        indexEntries.putLong(start).putLong(dataPosition - start).putInt(buffers.size());
        PartitionFiles.sealRecord(indexEntries, entry,
                PartitionFiles.indexEntryPosition(regions, subpartitions, subpartition), checksum);
        for (int i = 0, n = buffers.size(); i < n; i++) {
            Buffer buffer = buffers.get(i);
            if (buffer.isBuffer()) {
                dataBuffers[subpartition]++;
                dataBytes[subpartition] += buffer.readableBytes();
            }
        }
    }

    /**
     * Writes each subpartition's totals after the last region's entries: the partition is complete. Then
     * {@link #close()}.
     */
    void finish() throws IOException {
        ByteBuffer totals = ByteBuffer.allocate(subpartitions * PartitionFiles.TOTALS_BYTES);
        for (int s = 0; s < subpartitions; s++) {
            int start = totals.position();
            totals.putLong(dataBuffers[s]).putLong(dataBytes[s]);
            PartitionFiles.sealRecord(totals, start, PartitionFiles.totalsPosition(regions, subpartitions, s),
                    checksum);
        }
        totals.flip();
        writeFully(index, totals);
    }

    private void writeBuffers(List<Buffer> buffers) throws IOException {
        if (compressor != null) {
            for (int i = 0, n = buffers.size(); i < n; i++) {
                writeBuffer(buffers.get(i));
            }
            return;
        }
        // Without compression the stored bytes are the buffers' own: one gathering write for the whole run, headers
        // and payloads interleaved, instead of a system call per buffer.
        int n = buffers.size();
        if (n == 0) {
            return;
        }
        ensureGatherCapacity(n);
        long expected = 0;
        for (int i = 0; i < n; i++) {
            Buffer buffer = buffers.get(i);
            ByteBuffer payload = readableBytesOf(buffer);
            int length = payload.remaining();
            ByteBuffer header = headers[i];
            PartitionFiles.writeBufferHeader(header, dataPosition + expected, payload, !buffer.isBuffer(), false,
                    bufferChecksum);
            regionGather[2 * i] = header;
            regionGather[2 * i + 1] = payload;
            expected += PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
        }
        int first = 0;
        int count = 2 * n;
        long written = 0;
        while (written < expected) {
            long w = data.write(regionGather, first, count - first);
            if (w < 0) {
                throw new IOException("write to " + dataPath + " returned " + w);
            }
            written += w;
            while (first < count && !regionGather[first].hasRemaining()) {
                regionGather[first++] = null;
            }
        }
        Arrays.fill(regionGather, first, count, null);
        dataPosition += expected;
    }

    /** Grows the header space and the gather array to hold {@code buffers} buffers (rarely: a pool's size). */
    private void ensureGatherCapacity(int buffers) {
        if (regionGather.length < 2 * buffers) {
            regionGather = new ByteBuffer[2 * buffers];
        }
        if (headers.length < buffers) {
            headers = headerViews(buffers);
        }
    }

    /** {@code count} header views, back to back in one direct buffer (one system call's worth of headers). */
    private static ByteBuffer[] headerViews(int count) {
        int size = PartitionFiles.BUFFER_HEADER_BYTES;
        ByteBuffer memory = ByteBuffer.allocateDirect(count * size);
        ByteBuffer[] views = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            views[i] = memory.slice(i * size, size);
        }
        return views;
    }

    /**
     * A buffer's readable bytes through its segment's owner view: the partition owns the region's buffers until they
     * are written and recycled, one segment each, so no view is made per buffer.
     */
    private static ByteBuffer readableBytesOf(Buffer buffer) {
        return buffer.getOwnerView(buffer.getReaderIndex(), buffer.readableBytes());
    }

    private void writeBuffer(Buffer buffer) throws IOException {
        boolean isEvent = !buffer.isBuffer();
        ByteBuffer payload = readableBytesOf(buffer);
        int length = payload.remaining();
        boolean isCompressed = false;
        if (compressor != null && !isEvent) {
            int compressedLength = compressor.compress(payload, payload.position(), length, compressed, 0);
            if (compressedLength > 0) {
                compressed.clear().limit(compressedLength);
                payload = compressed;
                length = compressedLength;
                isCompressed = true;
            }
        }
        PartitionFiles.writeBufferHeader(header, dataPosition, payload, isEvent, isCompressed, bufferChecksum);
        gather[0] = header;
        gather[1] = payload;
        long expected = PartitionFiles.BUFFER_HEADER_BYTES + (long) length;
        long written = 0;
        while (written < expected) {
            long n = data.write(gather);
            if (n < 0) {
                throw new IOException("write to " + dataPath + " returned " + n);
            }
            written += n;
        }
        dataPosition += expected;
    }

    private static void writeFully(FileChannel channel, ByteBuffer source) throws IOException {
        while (source.hasRemaining()) {
            channel.write(source);
        }
    }

    /** Closes both files (they stay on disk). Idempotent. */
    @Override
    public void close() throws IOException {
        // Both are closed, the index first; a second failure is suppressed into the first.
        try (FileChannel dataFile = data; FileChannel indexFile = index) {
            // nothing else to do: try-with-resources closes them
        }
    }
}
