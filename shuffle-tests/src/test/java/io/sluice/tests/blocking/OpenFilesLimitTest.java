package io.sluice.tests.blocking;

import io.sluice.tests.transport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blocking partition set up when its process may open no more files fails with a message that says so and what
 * to change (the open-files limit, or fewer partitions and readers at once), not that the disk is full. In a JVM of
 * its own ({@link OpenFilesExhaustedProcess}): using up the open-files limit would break the test JVM.
 */
class OpenFilesLimitTest {

    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    void partitionSetUpWithNoFileLeftToOpen_failsSayingTooManyOpenFiles_andToRaiseTheLimit() throws Exception {
        try (ChildJvm child = ChildJvm.start(OpenFilesExhaustedProcess.class, List.of("-Xmx128m"), tmp,
                tmp.toString())) {
            String message = child.awaitValue("FAILURE", CHILD_TIMEOUT);

            assertTrue(message.contains("too many open files"), message);
            assertTrue(message.contains("raise the process's open-files limit (ulimit -n) or lower the number of "
                    + "partitions and readers open at once"), message);
            assertFalse(message.contains("disk space"), message);
            assertEquals(0, child.awaitExit(CHILD_TIMEOUT), child.toString());
        }
    }
}
