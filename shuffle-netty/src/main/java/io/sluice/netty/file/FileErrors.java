package io.sluice.netty.file;

import com.sun.management.UnixOperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a failed file operation in an environment's directory means and what the operator should change, for the
 * messages of blocking partitions and temporary directories: a full disk, too many open files, a directory that
 * something else deleted, missing permissions. The kind is read from the exception's type and the operating system's
 * reason ("No space left on device", "Too many open files"), which the JDK passes on as the message.
 *
 * <p>Stateless; any thread.
 */
public final class FileErrors {

    private FileErrors() {
    }

    /**
     * @param e         the failure
     * @param directory the environment's directory the operation worked in
     * @param optionKey the option that names the temporary directories ({@code shuffle.tmp-dirs})
     * @return what happened and what to change, e.g. "the disk is full: free disk space there or set ..."; never
     *     advice that does not fit the failure
     */
    public static String explain(IOException e, Path directory, String optionKey) {
        String reason = reason(e);
        if (reason.contains("too many open files")) {
            return "too many open files" + openFiles() + ": raise the process's open-files limit (ulimit -n) or "
                    + "lower the number of partitions and readers open at once";
        }
        if (reason.contains("no space left") || reason.contains("disk quota exceeded")) {
            return "the disk is full: free disk space there or set " + optionKey + " to a directory with room";
        }
        if (e instanceof NoSuchFileException && directory != null && !Files.isDirectory(directory)) {
            return "the directory " + directory + " is gone: something other than this environment deleted it "
                    + "(a temp-file cleaner?); exclude it from such cleaning or set " + optionKey
                    + " to a directory nobody else deletes from";
        }
        if (e instanceof AccessDeniedException || reason.contains("permission denied")) {
            return "permission denied: make the directory writable for this process or set " + optionKey
                    + " to one that is";
        }
        if (reason.contains("read-only file system")) {
            return "the file system is read-only: set " + optionKey + " to a directory on a writable one";
        }
        return "check the directory and its file system, or set " + optionKey + " to another directory";
    }

    /** The operating system's reason, lower case: for a FileSystemException its reason, else its message. */
    private static String reason(IOException e) {
        String reason = e instanceof FileSystemException fileSystemException ? fileSystemException.getReason()
                : e.getMessage();
        if (reason == null) {
            reason = e.getMessage();
        }
        return reason == null ? "" : reason.toLowerCase(Locale.ROOT);
    }

    /**
     * " (the limit is N)" for this process, or "" where the JVM cannot tell. Not the count in use: counting opens
     * /proc/self/fd, which fails with an InternalError when no file can be opened.
     */
    private static String openFiles() {
        try {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof UnixOperatingSystemMXBean unix) {
                return " (the limit is " + unix.getMaxFileDescriptorCount() + ")";
            }
        } catch (RuntimeException | LinkageError e) {
            // Only context for the message: without it the advice stands.
        }
        return "";
    }
}
