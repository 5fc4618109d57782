package io.sluice.tests.blocking;

import io.sluice.tests.support.Layout;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.transport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Environments of different processes on one {@code shuffle.tmp-dirs} (containers that share a host directory): the
 * directory of a live environment belongs to it for as long as it runs, whatever a pid says (across PID namespaces
 * and hosts pids mean nothing); the directory of a process that is gone is cleaned up by the next start.
 */
@Timeout(120)
class SharedTmpDirTest {

    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    void aLiveProcesssPartition_survivesAnotherStart_evenIfItsPidLooksDead_aKilledProcesssIsCleanedUp()
            throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        try (ChildJvm owner = TmpDirOwnerProcess.start(shared, tmp)) {
            Path directory = Path.of(owner.awaitValue("DIRECTORY", CHILD_TIMEOUT));
            Path data = Path.of(owner.awaitValue("DATA", CHILD_TIMEOUT));
            // Seen from another PID namespace the owner's pid is another process or none: say so in whatever a
            // pid-based check would read, and make the directory old.
            Files.writeString(directory.resolve("owner"), "999999999 2020-01-01T00:00:00Z");
            Files.setLastModifiedTime(directory, FileTime.fromMillis(0));

            try (ShuffleFixture here = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, TmpDirOwnerProcess.config(shared))) {
                assertTrue(Files.isRegularFile(data), "the live process's finished partition after another start");
            }

            owner.kill();
            try (ShuffleFixture after = ShuffleFixture.start(Layout.ONE_ENVIRONMENT,
                    TmpDirOwnerProcess.config(shared))) {
                assertFalse(Files.exists(directory), "the killed process's directory after the next start");
            }
        }
    }
}
