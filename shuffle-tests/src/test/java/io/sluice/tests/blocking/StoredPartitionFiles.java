package io.sluice.tests.blocking;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * The data and index file of the one finished blocking partition under a directory, read and damaged through the
 * layout docs/batch.md documents (written out here, so that a change of the format shows up in these tests too).
 * Used by one test thread, between the producer's finish() and the consumer's first read.
 */
final class StoredPartitionFiles {

    /** The index file's header: magic, version, subpartitions, flags, its checksum. */
    static final int INDEX_HEADER_BYTES = 20;
    /** One index entry: offset, length, buffers, its checksum. */
    static final int INDEX_ENTRY_BYTES = 24;
    /** The totals of one subpartition after the last region's entries: data buffers, data bytes, checksum. */
    static final int TOTALS_ENTRY_BYTES = 20;
    /** One stored buffer's header: length, kind, flags, reserved, checksum. */
    static final int STORED_HEADER_BYTES = 12;
    static final int FLAGS_OFFSET = 5;
    static final byte FLAG_COMPRESSED = 1;

    private final Path data;
    private final Path index;
    private final int subpartitions;

    private StoredPartitionFiles(Path data, Path index, int subpartitions) {
        this.data = data;
        this.index = index;
        this.subpartitions = subpartitions;
    }

    /** The files of the one partition under {@code directory} (searched recursively). */
    static StoredPartitionFiles under(Path directory, int subpartitions) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            List<Path> all = files.filter(Files::isRegularFile).toList();
            List<Path> data = all.stream().filter(p -> p.toString().endsWith(".data")).toList();
            List<Path> index = all.stream().filter(p -> p.toString().endsWith(".index")).toList();
            if (data.size() != 1 || index.size() != 1) {
                throw new AssertionError("expected one partition's files under " + directory + ": " + all);
            }
            return new StoredPartitionFiles(data.get(0), index.get(0), subpartitions);
        }
    }

    Path data() {
        return data;
    }

    Path index() {
        return index;
    }

    /** Regions written, from the index file's size. */
    int regions() throws IOException {
        long entries = Files.size(index) - INDEX_HEADER_BYTES - (long) subpartitions * TOTALS_ENTRY_BYTES;
        return Math.toIntExact(entries / ((long) subpartitions * INDEX_ENTRY_BYTES));
    }

    /** Where the index entry of {@code subpartition} in {@code region} starts in the index file. */
    long indexEntryPosition(int region, int subpartition) {
        return INDEX_HEADER_BYTES + ((long) region * subpartitions + subpartition) * INDEX_ENTRY_BYTES;
    }

    /** The offset in the data file of the span of {@code subpartition} in {@code region}. */
    long spanOffset(int region, int subpartition) throws IOException {
        return readIndex(indexEntryPosition(region, subpartition)).getLong(0);
    }

    /** The stored bytes of that span (headers included). */
    long spanLength(int region, int subpartition) throws IOException {
        return readIndex(indexEntryPosition(region, subpartition)).getLong(8);
    }

    /** The stored length of the buffer whose header starts at {@code offset} of the data file. */
    int storedLength(long offset) throws IOException {
        return readData(offset, STORED_HEADER_BYTES).getInt(0);
    }

    /** The flags of the buffer whose header starts at {@code offset}. */
    byte flags(long offset) throws IOException {
        return readData(offset, STORED_HEADER_BYTES).get(FLAGS_OFFSET);
    }

    /** The first buffer of that span whose flags include {@code flag}: where its header starts. */
    long firstBufferFlagged(int region, int subpartition, byte flag) throws IOException {
        long at = spanOffset(region, subpartition);
        long end = at + spanLength(region, subpartition);
        while (at < end) {
            if ((flags(at) & flag) != 0) {
                return at;
            }
            at += STORED_HEADER_BYTES + storedLength(at);
        }
        throw new AssertionError("no buffer flagged " + flag + " in region " + region + " of subpartition "
                + subpartition + " of " + data);
    }

    /** Flips bit {@code bit} of the byte at {@code offset} of {@code file}. */
    static void flipBit(Path file, long offset, int bit) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            readFully(channel, one, offset);
            one.put(0, (byte) (one.get(0) ^ (1 << bit)));
            writeFully(channel, one.rewind(), offset);
        }
    }

    /** Overwrites {@code length} bytes at {@code offset} of {@code file} with zeros. */
    static void zero(Path file, long offset, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            writeFully(channel, ByteBuffer.allocate(length), offset);
        }
    }

    /** Cuts {@code file} to {@code size} bytes. */
    static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    private ByteBuffer readIndex(long position) throws IOException {
        return read(index, position, INDEX_ENTRY_BYTES);
    }

    private ByteBuffer readData(long position, int length) throws IOException {
        return read(data, position, length);
    }

    private static ByteBuffer read(Path file, long position, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bytes = ByteBuffer.allocate(length);
            readFully(channel, bytes, position);
            return bytes.flip();
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer target, long position) throws IOException {
        long at = position;
        while (target.hasRemaining()) {
            int n = channel.read(target, at);
            if (n < 0) {
                throw new AssertionError("end of file at " + at + " of " + channel);
            }
            at += n;
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer source, long position) throws IOException {
        long at = position;
        while (source.hasRemaining()) {
            at += channel.write(source, at);
        }
    }
}
