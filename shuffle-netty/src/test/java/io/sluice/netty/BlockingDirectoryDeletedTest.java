package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Something other than the environment (a temp-file cleaner, an operator) deletes the environment's directory for
 * blocking partitions while the environment lives: the next partition makes it again and works, and when it cannot
 * be made again the failure says so, not that the disk is full.
 */
class BlockingDirectoryDeletedTest {

    private static final int RECORDS = 20;

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @TempDir
    Path tmp;

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    private ShuffleEnvironment environment() {
        return environments.localEnvironment(EnvironmentFixture.config(64)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString()));
    }

    /** The environment's one directory under {@link #tmp}. */
    private Path environmentDirectory() throws Exception {
        try (Stream<Path> children = Files.list(tmp)) {
            List<Path> dirs = children.filter(Files::isDirectory).toList();
            assertTrue(dirs.size() == 1, "one environment directory in " + tmp + ": " + dirs);
            return dirs.get(0);
        }
    }

    /** Writes {@code RECORDS} records into a new blocking partition and reads them back, in order and intact. */
    private void writeAndReadABlockingPartition(ShuffleEnvironment environment) throws Exception {
        EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(environment, 1);
        blocking.writer().setup();
        for (int i = 0; i < RECORDS; i++) {
            blocking.writer().emitRecord(TestRecords.record(0, i, 1000), 0);
        }
        blocking.writer().finish();
        InputGate gate = environments.gate(environment, 0, blocking.descriptor());
        try (RecordReader reader = new RecordReader(gate)) {
            gate.setup();
            for (int i = 0; i < RECORDS; i++) {
                assertArrayEquals(TestRecords.recordBytes(0, i, 1000), TestRecords.bytesOf(reader.next().data()),
                        "record " + i);
            }
            assertNull(reader.next());
        }
        blocking.writer().close();
    }

    @Test
    void deletedDirectory_isMadeAgain_andEveryLaterPartitionWorks() throws Exception {
        ShuffleEnvironment environment = environment();
        writeAndReadABlockingPartition(environment);
        Path directory = environmentDirectory();

        FileChannelManager.deleteRecursively(directory);
        assertFalse(Files.exists(directory));

        writeAndReadABlockingPartition(environment);
        writeAndReadABlockingPartition(environment);
        assertTrue(Files.isDirectory(directory), "made again");
    }

    @Test
    void deletedDirectoryThatCannotBeMadeAgain_failsSayingSo_notThatTheDiskIsFull() throws Exception {
        ShuffleEnvironment environment = environment();
        Path directory = environmentDirectory();
        FileChannelManager.deleteRecursively(tmp);
        Files.writeString(tmp, "a file where the temporary directory was");
        EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(environment, 1);

        ShuffleException failure = assertThrows(ShuffleException.class, blocking.writer()::setup);

        String message = failure.getMessage();
        assertTrue(message.contains("the directory " + directory + " was deleted by something else and cannot be "
                + "made again"), message);
        assertTrue(message.contains("set shuffle.tmp-dirs to another directory"), message);
        assertFalse(message.contains("disk space"), message);
        blocking.writer().close();
    }
}
