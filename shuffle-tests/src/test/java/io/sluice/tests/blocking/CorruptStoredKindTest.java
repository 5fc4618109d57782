package io.sluice.tests.blocking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.PartitionType;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.partition.FileSpan;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A finished blocking partition whose file was changed on disk so that a data buffer's stored kind reads "event":
 * its in-process reader gets the API's {@link ShuffleException} naming the partition, never the unchecked
 * exception of an event tag nobody wrote (the bytes of the record, here 'C' = 67), and the environment gets every
 * segment back (docs/contract.md section 6; docs/behaviours.md H-1).
 */
class CorruptStoredKindTest {

    /** Spans three 4 KiB buffers, so the second stored buffer starts with the record's bytes. */
    private static final int RECORD_BYTES = 10_000;
    private static final int KIND_OFFSET_IN_HEADER = Integer.BYTES;
    private static final byte KIND_EVENT = 1;

    @TempDir
    Path tmp;

    @Test
    void dataBufferStoredAsAnEvent_failsTheInProcessReaderWithShuffleException_namingThePartition() throws Exception {
        ShuffleConfig config = MemoryConfig.of(1024, MemoryConfig.SMALL_SEGMENT)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString());
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, config)) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            byte[] record = new byte[RECORD_BYTES];
            Arrays.fill(record, (byte) 'C');
            writer.emitRecord(ByteBuffer.wrap(record), 0);
            writer.finish();
            writer.close();
            markSecondStoredBufferAsAnEvent(dataFile());

            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            ShuffleException failure = assertThrows(ShuffleException.class, () -> {
                while (reader.next() != null) {
                    // reads until the corrupt buffer
                }
            });

            assertTrue(failure.getMessage().contains(partition.id().toString()), failure.getMessage());
            assertThrows(ShuffleException.class, reader::next, "the channel keeps failing");
        }
    }

    private Path dataFile() throws IOException {
        try (Stream<Path> files = Files.walk(tmp)) {
            List<Path> data = files.filter(p -> p.toString().endsWith(".data")).toList();
            assertEquals(1, data.size(), "one partition file: " + data);
            return data.get(0);
        }
    }

    /** Walks the stored buffers (length, kind, ...) and sets the kind byte of the second one to "event". */
    private static void markSecondStoredBufferAsAnEvent(Path data) throws IOException {
        try (FileChannel file = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer length = ByteBuffer.allocate(Integer.BYTES);
            file.read(length, 0);
            long second = FileSpan.STORED_HEADER_BYTES + length.flip().getInt();
            assertTrue(second + FileSpan.STORED_HEADER_BYTES < file.size(), "a second buffer in " + data);
            file.write(ByteBuffer.wrap(new byte[] {KIND_EVENT}), second + KIND_OFFSET_IN_HEADER);
        }
    }
}
