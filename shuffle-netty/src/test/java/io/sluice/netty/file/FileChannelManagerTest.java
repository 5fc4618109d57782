package io.sluice.netty.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The environment's temp directories: created, round-robin, cleaned of crashed processes, deleted at close. Who owns a
 * directory is decided by a lock its environment holds for its life, never by pids or names (which mean nothing
 * across PID namespaces and hosts); the cross-process cases run in a child JVM in shuffle-tests.
 */
class FileChannelManagerTest {

    @TempDir
    Path tmp;

    @Test
    void twoTmpDirs_oneDirectoryEach_usedRoundRobin_deletedAtClose() throws Exception {
        Path a = Files.createDirectory(tmp.resolve("a"));
        Path b = Files.createDirectory(tmp.resolve("b"));
        FileChannelManager manager = new FileChannelManager(List.of(a.toString(), b.toString()), "shuffle.tmp-dirs");
        List<Path> dirs = manager.directories();
        assertEquals(a, dirs.get(0).getParent());
        assertEquals(b, dirs.get(1).getParent());
        assertEquals(List.of(dirs.get(0), dirs.get(1), dirs.get(0)),
                List.of(manager.nextDirectory(), manager.nextDirectory(), manager.nextDirectory()));
        Files.writeString(dirs.get(1).resolve("some.data"), "x");

        manager.close();

        assertFalse(Files.exists(dirs.get(0)));
        assertFalse(Files.exists(dirs.get(1)));
    }

    /**
     * A directory of the older layout (a pid and a start time in an {@code owner} file, no lock) is left alone, dead
     * as its pid may look: across PID namespaces a pid proves nothing, and deleting a live partition loses data.
     */
    @Test
    void aDirectoryOfThePidBasedLayout_isLeftAlone_howeverDeadItsPidLooks() throws Exception {
        Path old = Files.createDirectory(tmp.resolve(FileChannelManager.DIRECTORY_PREFIX + "999999999-1"));
        Files.writeString(old.resolve("owner"), "999999999 2020-01-01T00:00:00Z");
        Files.writeString(old.resolve("old.data"), "maybe somebody's");
        Files.setLastModifiedTime(old, FileTime.fromMillis(0));

        FileChannelManager manager = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        assertTrue(Files.isRegularFile(old.resolve("old.data")), "the directory of the older layout");
        manager.close();
    }

    @Test
    void unwritableDirectory_failsNamingItAndTheOption() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "not a directory");

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> new FileChannelManager(List.of(tmp.toString(), file.toString()), "shuffle.tmp-dirs"));

        assertTrue(failure.getMessage().startsWith("shuffle.tmp-dirs"), failure.getMessage());
        assertTrue(failure.getMessage().contains(file.toString()), failure.getMessage());
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(file), left.toList(), "the first directory is removed again");
        }
    }

    /**
     * A second environment on the same tmp dir must not take the first's directory for an orphan, whatever its
     * pid-like metadata says: in another PID namespace (a container) the first's pid names another process or none.
     * The metadata a pid-based check trusts is made to say "dead" and the directory is made old.
     */
    @Test
    void aLiveEnvironmentsDirectory_survivesAnotherStart_evenWhenItsPidAndStartTimeLookDead() throws Exception {
        FileChannelManager live = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
        Path dir = live.directories().get(0);
        Path finished = Files.writeString(dir.resolve("finished.data"), "a finished partition");
        Files.writeString(dir.resolve("owner"), "999999999 2020-01-01T00:00:00Z");
        Files.setLastModifiedTime(dir, FileTime.fromMillis(0));

        FileChannelManager second = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        assertTrue(Files.isRegularFile(finished), "the live environment's partition after another one started");
        second.close();
        live.close();
        assertFalse(Files.exists(dir), "the live environment's directory after its own close");
    }

    /** A directory whose lock nobody holds was left by an environment whose process is gone: it is deleted. */
    @Test
    void aDirectoryWhoseLockIsFree_isDeletedAtStart() throws Exception {
        Path orphan = Files.createDirectory(tmp.resolve(FileChannelManager.DIRECTORY_PREFIX
                + "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));
        Files.writeString(orphan.resolve(FileChannelManager.LOCK_FILE), "");
        Files.writeString(orphan.resolve("left-behind.data"), "left behind");

        FileChannelManager manager = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        assertFalse(Files.exists(orphan), "the directory whose lock was free");
        assertTrue(Files.isDirectory(manager.directories().get(0)), "the new environment's own directory");
        manager.close();
    }

    /** A directory without a lock file that is young may be in the middle of its creation: it is left alone. */
    @Test
    void aYoungDirectoryWithoutLockFile_isLeftAlone() throws Exception {
        Path beingCreated = Files.createDirectory(tmp.resolve(FileChannelManager.DIRECTORY_PREFIX
                + "00000000-0000-0000-0000-000000000000"));

        FileChannelManager manager = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        assertTrue(Files.isDirectory(beingCreated), "a directory in the middle of its creation");
        manager.close();
    }

    /** The directory's lock is held for the environment's life, and given up at close. */
    @Test
    void theLockIsHeldUntilClose() throws Exception {
        FileChannelManager manager = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
        Path lock = manager.directories().get(0).resolve(FileChannelManager.LOCK_FILE);
        assertTrue(Files.isRegularFile(lock), "lock file " + lock);
        assertTrue(FileChannelManager.heldInThisJvm(manager.directories().get(0)), "held while open");

        manager.close();

        assertFalse(FileChannelManager.heldInThisJvm(manager.directories().get(0)), "held after close");
        assertFalse(Files.exists(lock.getParent()), "directory after close");
    }

    /** Names are random: two environments never collide, and nothing in a name is a pid. */
    @Test
    void directoryNames_areUniqueAndCarryNoPid() throws Exception {
        FileChannelManager first = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
        FileChannelManager second = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");
        String a = first.directories().get(0).getFileName().toString();
        String b = second.directories().get(0).getFileName().toString();

        assertNotEquals(a, b);
        String uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
        assertTrue(a.matches(FileChannelManager.DIRECTORY_PREFIX + uuid), a);
        assertTrue(b.matches(FileChannelManager.DIRECTORY_PREFIX + uuid), b);
        second.close();
        first.close();
    }
}
