package io.sluice.netty.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The environment's temp directories: created, round-robin, cleaned of crashed processes, deleted at close. */
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

    @Test
    void directoryOfADeadProcess_isDeletedAtStart_aLiveOnesIsKept() throws Exception {
        Path dead = Files.createDirectory(tmp.resolve(FileChannelManager.DIRECTORY_PREFIX + "999999999-1"));
        Files.writeString(dead.resolve(FileChannelManager.OWNER_FILE), "999999999 2020-01-01T00:00:00Z");
        Files.writeString(dead.resolve("old.data"), "left behind");
        FileChannelManager live = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        FileChannelManager second = new FileChannelManager(List.of(tmp.toString()), "shuffle.tmp-dirs");

        assertFalse(Files.exists(dead), "directory of the dead process");
        assertTrue(Files.isDirectory(live.directories().get(0)), "directory of this (live) process");
        second.close();
        live.close();
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
}
