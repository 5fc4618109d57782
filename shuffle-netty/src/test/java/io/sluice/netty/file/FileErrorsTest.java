package io.sluice.netty.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of file failure gets advice that fits it, read from the exception as the JDK makes it from the operating
 * system's error: only a full disk is told to free disk space.
 */
class FileErrorsTest {

    private static final String OPTION = "shuffle.tmp-dirs";

    @TempDir
    Path directory;

    private String explain(IOException e) {
        return FileErrors.explain(e, directory, OPTION);
    }

    @Test
    void tooManyOpenFiles_isToldToRaiseTheLimitOrOpenFewer() {
        String advice = explain(new FileSystemException(directory.resolve("p.data").toString(), null,
                "Too many open files"));

        assertTrue(advice.startsWith("too many open files"), advice);
        assertTrue(advice.endsWith(": raise the process's open-files limit (ulimit -n) or lower the number of "
                + "partitions and readers open at once"), advice);
    }

    @Test
    void fullDiskOrQuota_isToldToFreeSpace() {
        String full = "the disk is full: free disk space there or set shuffle.tmp-dirs to a directory with room";

        assertEquals(full, explain(new IOException("No space left on device")));
        assertEquals(full, explain(new FileSystemException("p.data", null, "Disk quota exceeded")));
    }

    @Test
    void missingFileOfAMissingDirectory_saysTheDirectoryIsGone() {
        Path gone = directory.resolve("deleted");

        String advice = FileErrors.explain(new NoSuchFileException(gone.resolve("p.data").toString()), gone, OPTION);

        assertEquals("the directory " + gone + " is gone: something other than this environment deleted it (a "
                + "temp-file cleaner?); exclude it from such cleaning or set shuffle.tmp-dirs to a directory nobody "
                + "else deletes from", advice);
    }

    @Test
    void permissionsAndReadOnlyFileSystems_sayWhatIsWrong() {
        assertEquals("permission denied: make the directory writable for this process or set shuffle.tmp-dirs to one "
                + "that is", explain(new AccessDeniedException(directory.toString())));
        assertEquals("the file system is read-only: set shuffle.tmp-dirs to a directory on a writable one",
                explain(new FileSystemException("p.data", null, "Read-only file system")));
    }

    @Test
    void anythingElse_pointsAtTheDirectory_withoutGuessing() {
        assertEquals("check the directory and its file system, or set shuffle.tmp-dirs to another directory",
                explain(new IOException("Input/output error")));
    }
}
