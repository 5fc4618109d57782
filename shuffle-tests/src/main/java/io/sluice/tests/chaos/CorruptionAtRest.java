package io.sluice.tests.chaos;

import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.StoredChecksum;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Damages the files of a finished blocking partition before anyone reads them, as a failing disk, a stray write or
 * a careless operator would: the at-rest faults of {@link FaultKind#atRest()}.
 *
 * <p>Places are chosen by the fault's selector, reduced modulo what the file offers, and as far as possible without
 * knowing the file format: a byte anywhere in the data file ({@link FaultKind#CORRUPT_DATA_BIT}, which has no
 * header: every byte belongs to a stored buffer), a length shorter than the data file
 * ({@link FaultKind#TRUNCATE_DATA}), an index entry by the header, entry and totals sizes the partition's own code
 * declares (read from its constants, so the harness follows the format). Two faults need the layout:
 * {@link FaultKind#CORRUPT_COMPRESSED_BLOCK} walks the stored buffers (length, kind, flags at the head of each, as
 * {@link FileSpan} declares) to find the compressed ones, and {@link FaultKind#BLOCKING_IO_ERROR} appends a stored
 * event header that claims {@value Integer#MAX_VALUE} bytes and points an index entry at it, with the entry's
 * checksum, so that the reader's allocation fails with an {@link OutOfMemoryError} on the environment's blocking I/O
 * thread. When the walk does not end exactly at the end of the file, the layout has changed under the harness: it
 * throws, naming what to update.
 *
 * <p>Stateless; called by the run's thread between the producers' finish and the consumers' requests.
 */
final class CorruptionAtRest {

    private static final String PARTITION_FILES = "io.sluice.netty.partition.sortmerge.PartitionFiles";
    /** The forged entry's span: just long enough for the forged event's claim to pass the reader's bounds check. */
    private static final long FORGED_SPAN = FileSpan.STORED_HEADER_BYTES + (long) Integer.MAX_VALUE;
    /** Where the index header keeps the number of subpartitions, and its flags. */
    private static final int SUBPARTITIONS_AT = 8;
    private static final int FLAGS_AT = 12;

    private CorruptionAtRest() {
    }

    /**
     * @param fault an at-rest fault
     * @param data  the partition's data file
     * @param index the partition's index file
     * @return what was done, in words, or null when the file offered nothing to damage (the fault did not hit)
     * @throws IOException when a file cannot be read or written
     */
    static String apply(Fault fault, Path data, Path index) throws IOException {
        return switch (fault.kind()) {
            case CORRUPT_DATA_BIT -> flipBit(data, fault.at(), fault.amount());
            case CORRUPT_INDEX_ENTRY -> zeroIndexEntry(index, fault.at());
            case TRUNCATE_DATA -> truncate(data, fault.at());
            case CORRUPT_COMPRESSED_BLOCK -> flipCompressedBit(data, fault.at(), fault.amount());
            case BLOCKING_IO_ERROR -> forgeHugeEvent(data, index, fault.at());
            default -> throw new IllegalArgumentException(fault + " does not damage files");
        };
    }

    /** Flips bit {@code bit} of the byte at {@code selector} modulo the file's size. */
    static String flipBit(Path file, long selector, int bit) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size == 0) {
                return null;
            }
            long offset = Math.floorMod(selector, size);
            flip(channel, offset, bit);
            return "flipped bit " + bit + " of byte " + offset + " of " + file.getFileName() + " (" + size
                    + " bytes)";
        }
    }

    /** Zeroes the index entry {@code selector} modulo the number of entries. */
    static String zeroIndexEntry(Path index, long selector) throws IOException {
        int header = layoutConstant("INDEX_HEADER_BYTES");
        int entry = layoutConstant("INDEX_ENTRY_BYTES");
        try (FileChannel channel = FileChannel.open(index, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long entries = entries(channel, header, entry);
            if (entries <= 0) {
                return null;
            }
            long chosen = Math.floorMod(selector, entries);
            long position = header + chosen * entry;
            writeFully(channel, ByteBuffer.allocate(entry), position);
            return "zeroed index entry " + chosen + " of " + entries + " (bytes " + position + ".."
                    + (position + entry - 1) + ") of " + index.getFileName();
        }
    }

    /** Cuts the file to {@code selector} modulo its size: at least one byte goes. */
    static String truncate(Path file, long selector) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size == 0) {
                return null;
            }
            long length = Math.floorMod(selector, size);
            channel.truncate(length);
            return "cut " + file.getFileName() + " from " + size + " to " + length + " bytes";
        }
    }

    /**
     * Flips bit {@code bit} of a byte inside the payload of a compressed stored buffer: the buffer is
     * {@code selector} modulo the number of compressed ones, the byte {@code selector / count} modulo its length.
     */
    static String flipCompressedBit(Path data, long selector, int bit) throws IOException {
        try (FileChannel channel = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            List<long[]> compressed = compressedPayloads(channel, data);
            if (compressed.isEmpty()) {
                return null;
            }
            long[] chosen = compressed.get((int) Math.floorMod(selector, (long) compressed.size()));
            long offset = chosen[0] + Math.floorMod(selector / compressed.size(), chosen[1]);
            flip(channel, offset, bit);
            return "flipped bit " + bit + " of byte " + offset + " of " + data.getFileName() + ", in the "
                    + chosen[1] + "-byte payload at " + chosen[0] + " of one of its " + compressed.size()
                    + " compressed stored buffers";
        }
    }

    /**
     * Appends a stored event header claiming {@link Integer#MAX_VALUE} bytes and points index entry {@code selector}
     * (modulo the entries) at it, as one buffer in a span long enough for the claim to pass the reader's bounds check,
     * and with the entry's checksum: the reader takes the entry at its word and allocates. The data file grows to hold
     * the span, sparsely (one byte written at its end).
     */
    static String forgeHugeEvent(Path data, Path index, long selector) throws IOException {
        int header = layoutConstant("INDEX_HEADER_BYTES");
        int entry = layoutConstant("INDEX_ENTRY_BYTES");
        byte kindEvent = (byte) layoutConstant("KIND_EVENT");
        try (FileChannel dataChannel = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileChannel indexChannel = FileChannel.open(index, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long entries = entries(indexChannel, header, entry);
            if (entries <= 0) {
                return null;
            }
            boolean checksummed = (readInt(indexChannel, FLAGS_AT) & layoutConstant("INDEX_FLAG_CHECKSUMS")) != 0;
            long end = dataChannel.size();
            ByteBuffer storedHeader = ByteBuffer.allocate(FileSpan.STORED_HEADER_BYTES);
            storedHeader.putInt(Integer.MAX_VALUE).put(kindEvent).put(checksummed ? FileSpan.FLAG_CHECKSUM : 0)
                    .clear(); // the rest stays zero: the event is never read far enough for its checksum to matter
            writeFully(dataChannel, storedHeader, end);
            writeFully(dataChannel, ByteBuffer.allocate(1), end + FORGED_SPAN - 1);
            long chosen = Math.floorMod(selector, entries);
            long position = header + chosen * entry;
            ByteBuffer forged = ByteBuffer.allocate(entry);
            forged.putLong(end).putLong(FORGED_SPAN).putInt(1).flip();
            int checksum = new StoredChecksum().ofRecord(position, forged);
            forged.limit(entry).putInt(entry - Integer.BYTES, checksum);
            writeFully(indexChannel, forged, position);
            return "appended at byte " + end + " of " + data.getFileName() + " an event header claiming "
                    + Integer.MAX_VALUE + " bytes and pointed index entry " + chosen + " of " + entries + " at it";
        }
    }

    /**
     * The payloads of the compressed stored buffers, as {offset, length}, found by walking every stored buffer of
     * the file from its start.
     *
     * @throws IllegalStateException when the walk does not end at the end of the file (the layout has changed)
     */
    private static List<long[]> compressedPayloads(FileChannel channel, Path file) throws IOException {
        int headerBytes = FileSpan.STORED_HEADER_BYTES;
        ByteBuffer header = ByteBuffer.allocate(headerBytes);
        long size = channel.size();
        List<long[]> compressed = new ArrayList<>();
        long at = 0;
        while (at + headerBytes <= size) {
            header.clear();
            readFully(channel, header, at);
            int length = header.getInt(0);
            if (length < 0 || at + headerBytes + length > size) {
                break;
            }
            if ((header.get(5) & FileSpan.FLAG_COMPRESSED) != 0 && length > 0) {
                compressed.add(new long[] {at + headerBytes, length});
            }
            at += headerBytes + length;
        }
        if (at != size) {
            throw new IllegalStateException("the stored buffers of " + file + " (" + size + " bytes) do not parse as "
                    + "int length, byte kind, byte flags, then the bytes (" + FileSpan.STORED_HEADER_BYTES
                    + "-byte headers): the walk stopped at byte " + at + "; the layout of blocking partitions has "
                    + "changed, update " + CorruptionAtRest.class.getName());
        }
        return compressed;
    }

    /** The index entries of the file: what lies between its header and the subpartitions' totals. */
    private static long entries(FileChannel index, int header, int entry) throws IOException {
        if (index.size() < header) {
            return 0;
        }
        long totals = (long) readInt(index, SUBPARTITIONS_AT) * layoutConstant("TOTALS_BYTES");
        return Math.max(0, (index.size() - header - totals) / entry);
    }

    private static int readInt(FileChannel channel, long at) throws IOException {
        ByteBuffer value = ByteBuffer.allocate(Integer.BYTES);
        readFully(channel, value, at);
        return value.getInt(0);
    }

    /**
     * A constant of the partition files' layout, read from shuffle-netty's own code so that the harness follows it.
     *
     * @throws IllegalStateException when it is gone (then the layout changed: update this class)
     */
    static int layoutConstant(String name) {
        try {
            Field field = Class.forName(PARTITION_FILES).getDeclaredField(name);
            field.setAccessible(true);
            return ((Number) field.get(null)).intValue();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read " + PARTITION_FILES + "." + name + " (" + e + "): the layout "
                    + "of blocking partitions has changed, update " + CorruptionAtRest.class.getName(), e);
        }
    }

    private static void flip(FileChannel channel, long offset, int bit) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        readFully(channel, one, offset);
        one.put(0, (byte) (one.get(0) ^ (1 << bit))).clear();
        writeFully(channel, one, offset);
    }

    private static void readFully(FileChannel channel, ByteBuffer target, long at) throws IOException {
        long position = at;
        while (target.hasRemaining()) {
            int n = channel.read(target, position);
            if (n < 0) {
                throw new IOException("unexpected end of file at byte " + position);
            }
            position += n;
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer source, long at) throws IOException {
        long position = at;
        while (source.hasRemaining()) {
            position += channel.write(source, position);
        }
    }
}
