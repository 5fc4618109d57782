package io.sluice.tests.blocking;

import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionType;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A finished blocking partition whose files are damaged on disk before it is read: a flipped bit in a stored
 * buffer, a zeroed index entry (of a middle region, and of the last one), a truncated data file, a cleared
 * compressed flag and a flipped bit in an LZ4 block. On every path (in-process, TCP through the read memory, TCP
 * by sendfile) and codec, the consumer fails with a {@link CorruptDataException} that names the partition, the
 * subpartition, the damaged file and the offset; it never gets a wrong record, and every segment is back on both
 * sides once it has closed (the fixture checks that).
 */
class CorruptionAtRestTest {

    private static final int SUBPARTITIONS = 2;
    /** 4,000 records, every other one to each subpartition. */
    private static final int RECORDS_PER_SUBPARTITION = 2000;
    private static final int RECORD_BYTES = 500;
    /** Runs of this many equal bytes make the records compressible. */
    private static final int RUN_BYTES = 50;
    private static final int SEGMENT = 4096;

    @TempDir
    Path tmp;

    /** What is done to the files, and where the consumer's failure must point. */
    enum Corruption {
        FLIPPED_PAYLOAD_BIT(false),
        ZEROED_INDEX_ENTRY(false),
        ZEROED_LAST_INDEX_ENTRY(false),
        TRUNCATED_DATA_FILE(false),
        CLEARED_COMPRESSED_FLAG(true),
        FLIPPED_LZ4_BIT(true);

        private final boolean needsLz4;

        Corruption(boolean needsLz4) {
            this.needsLz4 = needsLz4;
        }

        /** Damages the files; returns the file and offset the failure must name. */
        Damage apply(StoredPartitionFiles files) throws IOException {
            int regions = files.regions();
            int middle = regions / 2;
            switch (this) {
                case FLIPPED_PAYLOAD_BIT -> {
                    long buffer = files.spanOffset(middle, 0);
                    long inPayload = buffer + StoredPartitionFiles.STORED_HEADER_BYTES + files.storedLength(buffer) / 2;
                    StoredPartitionFiles.flipBit(files.data(), inPayload, 3);
                    return new Damage(files.data(), buffer);
                }
                case ZEROED_INDEX_ENTRY, ZEROED_LAST_INDEX_ENTRY -> {
                    long entry = files.indexEntryPosition(this == ZEROED_INDEX_ENTRY ? middle : regions - 1, 0);
                    StoredPartitionFiles.zero(files.index(), entry, StoredPartitionFiles.INDEX_ENTRY_BYTES);
                    return new Damage(files.index(), entry);
                }
                case TRUNCATED_DATA_FILE -> {
                    long cut = files.spanOffset(regions - 1, 0) + files.spanLength(regions - 1, 0) / 2;
                    StoredPartitionFiles.truncate(files.data(), cut);
                    return new Damage(files.data(), cut);
                }
                case CLEARED_COMPRESSED_FLAG -> {
                    long buffer = files.firstBufferFlagged(middle, 0, StoredPartitionFiles.FLAG_COMPRESSED);
                    StoredPartitionFiles.flipBit(files.data(), buffer + StoredPartitionFiles.FLAGS_OFFSET, 0);
                    return new Damage(files.data(), buffer);
                }
                case FLIPPED_LZ4_BIT -> {
                    // An LZ4 block ends in literals: a flipped bit in its last byte still decodes, to wrong bytes.
                    long buffer = files.firstBufferFlagged(middle, 0, StoredPartitionFiles.FLAG_COMPRESSED);
                    long lastByte = buffer + StoredPartitionFiles.STORED_HEADER_BYTES + files.storedLength(buffer) - 1;
                    StoredPartitionFiles.flipBit(files.data(), lastByte, 0);
                    return new Damage(files.data(), buffer);
                }
                default -> throw new AssertionError(this);
            }
        }
    }

    /** The damaged file, and the offset in it that the consumer's failure names. */
    record Damage(Path file, long offset) {
    }

    static Stream<Arguments> everyCorruptionPathAndCodec() {
        List<Arguments> cases = new ArrayList<>();
        for (Corruption corruption : Corruption.values()) {
            for (BlockingLink link : List.of(BlockingLink.IN_PROCESS, BlockingLink.NIO, BlockingLink.NIO_SENDFILE)) {
                for (String codec : List.of("none", "lz4")) {
                    if (!corruption.needsLz4 || codec.equals("lz4")) {
                        cases.add(Arguments.of(corruption, link, codec));
                    }
                }
            }
        }
        return cases.stream();
    }

    static Stream<Arguments> everyPathAndCodec() {
        return everyCorruptionPathAndCodec().filter(a -> a.get()[0] == Corruption.FLIPPED_PAYLOAD_BIT)
                .map(a -> Arguments.of(a.get()[1], a.get()[2]));
    }

    private ShuffleConfig config(String codec) {
        return ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, 4L << 20)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, (long) SEGMENT)
                // Regions of 16 buffers: about 60 records of each subpartition.
                .with(ShuffleOptions.BLOCKING_WRITE_MEMORY, 16L * SEGMENT)
                .with(ShuffleOptions.COMPRESSION_CODEC, codec)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString())
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, Duration.ofMillis(10))
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofSeconds(2));
    }

    /** The fixture of the test below, undamaged: every record arrives, so a failure there is the damage's doing. */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("everyPathAndCodec")
    void anUndamagedPartition_readsEveryRecord(BlockingLink link, String codec) throws Exception {
        try (ShuffleFixture shuffle = link.start(config(codec))) {
            RegisteredPartition partition = writeFinished(shuffle);
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            long read = shuffle.fork("consumer", () -> readAndVerify(reader)).await(Await.EVENTUALLY);
            assertEquals(RECORDS_PER_SUBPARTITION, read, "records of subpartition 0");
        }
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("everyCorruptionPathAndCodec")
    void aDamagedFile_failsItsConsumer_namingPartitionSubpartitionFileAndOffset_neverWithAWrongRecord(
            Corruption corruption, BlockingLink link, String codec) throws Exception {
        try (ShuffleFixture shuffle = link.start(config(codec))) {
            RegisteredPartition partition = writeFinished(shuffle);
            StoredPartitionFiles files = StoredPartitionFiles.under(tmp, SUBPARTITIONS);
            assertTrue(files.regions() >= 4, "regions written: " + files.regions());
            Damage damage = corruption.apply(files);

            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            Throwable failure = shuffle.fork("consumer", () -> readAndVerify(reader)).awaitFailure(Await.EVENTUALLY);

            // A wrong record fails readAndVerify with an AssertionError instead.
            assertInstanceOf(CorruptDataException.class, failure, "what the consumer of " + damage + " got");
            String message = failure.getMessage();
            assertTrue(message.contains(partition.id().toString()), "names the partition: " + message);
            assertTrue(message.contains("subpartition 0"), "names the subpartition: " + message);
            assertTrue(message.contains(damage.file().getFileName().toString()), "names the file: " + message);
            assertTrue(message.contains("offset " + damage.offset()), "names the offset " + damage.offset() + ": "
                    + message);
            reader.close();
        }
    }

    /**
     * Without buffer checksums ({@code shuffle.blocking.checksums=false}) the partition reads back whole on every path,
     * and its index and counts are still checked: a zeroed index entry fails the consumer all the same.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("everyPathAndCodec")
    void withoutBufferChecksums_everyRecordArrives_andADamagedIndexStillFailsTheConsumer(BlockingLink link,
                                                                                          String codec)
            throws Exception {
        ShuffleConfig config = config(codec).with(ShuffleOptions.BLOCKING_CHECKSUMS, false);
        try (ShuffleFixture shuffle = link.start(config)) {
            RegisteredPartition partition = writeFinished(shuffle);
            RecordReader whole = shuffle.setUpReader("consumer", 0, partition);
            assertEquals(RECORDS_PER_SUBPARTITION, shuffle.fork("consumer", () -> readAndVerify(whole))
                    .await(Await.EVENTUALLY), "records of subpartition 0");

            Damage damage = Corruption.ZEROED_INDEX_ENTRY.apply(StoredPartitionFiles.under(tmp, SUBPARTITIONS));
            RecordReader damaged = shuffle.setUpReader("second consumer", 0, partition);
            Throwable failure = shuffle.fork("second consumer", () -> readAndVerify(damaged))
                    .awaitFailure(Await.EVENTUALLY);
            assertInstanceOf(CorruptDataException.class, failure, "what the consumer of " + damage + " got");
            assertTrue(failure.getMessage().contains("offset " + damage.offset()), failure.getMessage());
            damaged.close();
        }
    }

    /** Writes the records and finishes the partition; the writer is closed, the data stays. */
    private static RegisteredPartition writeFinished(ShuffleFixture shuffle) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, SUBPARTITIONS, 0);
        try (ResultPartitionWriter writer = shuffle.createWriter("producer", partition)) {
            writer.setup();
            for (int sequence = 0; sequence < RECORDS_PER_SUBPARTITION; sequence++) {
                for (int subpartition = 0; subpartition < SUBPARTITIONS; subpartition++) {
                    writer.emitRecord(ByteBuffer.wrap(record(subpartition, sequence)), subpartition);
                }
            }
            writer.finish();
        }
        return partition;
    }

    /** Record {@code sequence} of {@code subpartition}: its sequence number, then runs of equal bytes. */
    private static byte[] record(int subpartition, int sequence) {
        byte[] record = new byte[RECORD_BYTES];
        ByteBuffer.wrap(record).putInt(sequence);
        for (int i = Integer.BYTES; i < RECORD_BYTES; i++) {
            record[i] = (byte) (sequence * 7 + subpartition + i / RUN_BYTES);
        }
        return record;
    }

    /**
     * Reads subpartition 0 to its end, comparing every record with the one written.
     *
     * @return the records read
     * @throws AssertionError at the first record that is not the one written
     */
    private static long readAndVerify(RecordReader reader) throws IOException, InterruptedException {
        long read = 0;
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent() || !next.data().equals(ByteBuffer.wrap(record(0, (int) read)))) {
                throw new AssertionError("record " + read + " of subpartition 0 is not the one written ("
                        + next.data().remaining() + " bytes" + (next.isEvent() ? ", an event" : "") + ")");
            }
            read++;
        }
        return read;
    }
}
