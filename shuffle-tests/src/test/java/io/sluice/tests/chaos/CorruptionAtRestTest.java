package io.sluice.tests.chaos;

import io.sluice.api.PartitionType;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.StoredChecksum;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The damage the at-rest faults do to a blocking partition's files: exactly what the selector picks, nothing else;
 * and the layout the harness assumes is the one a real partition is written in (this fails when the format
 * changes, naming what to update).
 */
class CorruptionAtRestTest {

    private static final int HEADER = FileSpan.STORED_HEADER_BYTES;

    @TempDir
    Path tmp;

    @Test
    void aFlippedBit_changesOneBitOfTheSelectedByte_andNothingElse() throws IOException {
        byte[] original = bytes(1000);
        Path file = write("p.data", original);

        String done = CorruptionAtRest.flipBit(file, 123_456L, 5); // 123456 mod 1000 = 456

        byte[] damaged = Files.readAllBytes(file);
        byte[] expected = original.clone();
        expected[456] ^= 1 << 5;
        assertArrayEquals(expected, damaged);
        assertTrue(done.contains("bit 5 of byte 456"), done);
    }

    @Test
    void truncation_cutsTheFileToTheSelectedLength_alwaysShorter() throws IOException {
        Path file = write("p.data", bytes(1000));

        CorruptionAtRest.truncate(file, 2_999L);

        assertEquals(999, Files.size(file));
        assertNull(CorruptionAtRest.truncate(write("empty.data", new byte[0]), 7), "nothing to cut");
    }

    @Test
    void aZeroedIndexEntry_isOneWholeEntryAfterTheHeader_theOthersAndTheTotalsStay() throws IOException {
        int header = CorruptionAtRest.layoutConstant("INDEX_HEADER_BYTES");
        int entry = CorruptionAtRest.layoutConstant("INDEX_ENTRY_BYTES");
        int totals = CorruptionAtRest.layoutConstant("TOTALS_BYTES");
        // Three regions of two subpartitions: six entries, then two totals.
        byte[] original = new byte[header + 6 * entry + 2 * totals];
        Arrays.fill(original, (byte) 0x7F);
        ByteBuffer.wrap(original).putInt(8, 2);
        Path index = write("p.index", original);

        String done = CorruptionAtRest.zeroIndexEntry(index, 6 * 1_000 + 4);

        byte[] expected = original.clone();
        Arrays.fill(expected, header + 4 * entry, header + 5 * entry, (byte) 0);
        assertArrayEquals(expected, Files.readAllBytes(index));
        assertTrue(done.contains("entry 4 of 6"), done);
    }

    @Test
    void aCompressedBlockBitFlip_landsInsideTheSelectedCompressedPayload() throws IOException {
        // Stored buffers: plain (100 bytes), compressed (40), event (12), compressed (60).
        ByteBuffer data = ByteBuffer.allocate(4 * HEADER + 212);
        stored(data, 100, (byte) 0, (byte) 0);
        stored(data, 40, (byte) 0, FileSpan.FLAG_COMPRESSED);
        stored(data, 12, (byte) 1, (byte) 0);
        stored(data, 60, (byte) 0, FileSpan.FLAG_COMPRESSED);
        byte[] original = data.array();
        Path file = write("p.data", original);
        long secondCompressedPayload = 3 * HEADER + 100 + 40 + 12 + HEADER;

        // Selector 2 * 7 + 1: the second compressed buffer (index 1 of 2), byte 7 of its payload.
        CorruptionAtRest.flipCompressedBit(file, 2 * 7 + 1, 0);

        byte[] expected = original.clone();
        expected[(int) secondCompressedPayload + 7] ^= 1;
        assertArrayEquals(expected, Files.readAllBytes(file));
    }

    @Test
    void aDataFileThatDoesNotParse_isRefused_namingWhatToUpdate() throws IOException {
        ByteBuffer data = ByteBuffer.allocate(HEADER + 10);
        data.putInt(500).put((byte) 0).put(FileSpan.FLAG_COMPRESSED); // claims more bytes than the file has
        Path file = write("p.data", data.array());

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> CorruptionAtRest.flipCompressedBit(file, 0, 0));

        assertTrue(refused.getMessage().contains(CorruptionAtRest.class.getName()), refused.getMessage());
    }

    @Test
    void theForgedEvent_claimsMoreThanAnArrayHolds_andAnIndexEntryPointsAtIt_withItsChecksum() throws IOException {
        int header = CorruptionAtRest.layoutConstant("INDEX_HEADER_BYTES");
        int entry = CorruptionAtRest.layoutConstant("INDEX_ENTRY_BYTES");
        int totals = CorruptionAtRest.layoutConstant("TOTALS_BYTES");
        Path data = write("p.data", bytes(300));
        // One subpartition, checksummed buffers, four regions.
        byte[] indexBytes = new byte[header + 4 * entry + totals];
        ByteBuffer.wrap(indexBytes).putInt(8, 1).putInt(12, CorruptionAtRest.layoutConstant("INDEX_FLAG_CHECKSUMS"));
        Path index = write("p.index", indexBytes);

        CorruptionAtRest.forgeHugeEvent(data, index, 4 * 5 + 2);

        ByteBuffer forged = readAt(data, 300, HEADER);
        assertEquals(Integer.MAX_VALUE, forged.getInt(0));
        assertEquals(1, forged.get(4), "the kind of an event");
        assertEquals(FileSpan.FLAG_CHECKSUM, forged.get(5), "flagged like the partition's other buffers");
        long position = header + 2L * entry;
        ByteBuffer written = ByteBuffer.wrap(Files.readAllBytes(index), (int) position, entry).slice();
        assertEquals(300, written.getLong(0), "the entry points at the forged header");
        long span = written.getLong(8);
        assertTrue(span >= HEADER + (long) Integer.MAX_VALUE, "and lets it pass the bounds check");
        assertEquals(1, written.getInt(16), "one buffer");
        int checksum = new StoredChecksum().ofRecord(position, written.duplicate().limit(entry - Integer.BYTES));
        assertEquals(checksum, written.getInt(entry - Integer.BYTES), "the entry's checksum holds");
        assertTrue(Files.size(data) >= 300 + span, "the data file holds the span: " + Files.size(data));
    }

    /** What a blocking partition written with lz4 really looks like on disk, read the harness's way. */
    @Test
    void theFilesOfARealBlockingPartition_parseAsTheHarnessAssumes() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.TMP_DIRS, tmp.toString())
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4096L)
                .with(ShuffleOptions.MEMORY_TOTAL, 4096L * 64)
                .with(ShuffleOptions.COMPRESSION_CODEC, "lz4");
        int subpartitions = 3;
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, config)) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, subpartitions, 0);
            try (ResultPartitionWriter writer = shuffle.createWriter("producer", partition)) {
                writer.setup();
                // Small records of one channel: their headers repeat, so lz4 shrinks most buffers.
                RecordGenerator generator = new RecordGenerator(0, 1, RecordSizes.fixed(24));
                for (int i = 0; i < 3000; i++) {
                    writer.emitRecord(generator.next(0), i % subpartitions);
                }
                writer.finish();
            }
            Path data = find(partition.id() + ".data");
            Path index = find(partition.id() + ".index");

            String compressed = CorruptionAtRest.flipCompressedBit(data, 42, 3);
            String zeroed = CorruptionAtRest.zeroIndexEntry(index, 7);

            assertNotNull(compressed, "no compressed stored buffer in " + Files.size(data) + " bytes of lz4 data");
            long entries = Long.parseLong(zeroed.replaceFirst(".* of (\\d+) \\(bytes.*", "$1"));
            assertTrue(entries > 0 && entries % subpartitions == 0,
                    "index entries are regions x subpartitions: " + zeroed);
        }
    }

    private Path find(String name) throws IOException {
        try (Stream<Path> files = Files.walk(tmp)) {
            return files.filter(file -> file.getFileName().toString().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " not under " + tmp));
        }
    }

    private static void stored(ByteBuffer data, int length, byte kind, byte flags) {
        data.putInt(length).put(kind).put(flags).putShort((short) 0).putInt(0); // the checksum is not looked at
        for (int i = 0; i < length; i++) {
            data.put((byte) (i * 31 + length));
        }
    }

    private static ByteBuffer readAt(Path file, long at, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(length);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (bytes.hasRemaining()) {
                if (channel.read(bytes, at + bytes.position()) < 0) {
                    throw new IOException("end of " + file + " at " + (at + bytes.position()));
                }
            }
        }
        return bytes.flip();
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(tmp.resolve(name), bytes);
    }

    private static byte[] bytes(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 7 + 3);
        }
        return bytes;
    }
}
