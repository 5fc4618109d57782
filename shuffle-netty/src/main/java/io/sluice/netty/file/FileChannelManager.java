package io.sluice.netty.file;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The temporary directories of one environment: one directory of its own under each configured temp directory,
 * handed out round-robin to blocking partitions.
 *
 * <p>Each directory is named {@code sluice-shuffle-<pid>-<n>} and holds an {@value #OWNER_FILE} file with the owning
 * process's pid and start time. At creation the manager deletes the directories of processes that are gone (same
 * user: the others' are not ours to touch, and the file system refuses anyway), creates its own, and checks that it
 * can write there; {@link #close()} deletes them with everything in them, and so does a JVM shutdown hook when the
 * environment is never closed.
 *
 * <p>Any thread: the directories are fixed at construction; the round-robin counter is atomic; close is idempotent.
 */
public final class FileChannelManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FileChannelManager.class);

    /** Prefix of every environment directory. */
    static final String DIRECTORY_PREFIX = "sluice-shuffle-";
    /** Marks who owns a directory: "pid startInstant". */
    static final String OWNER_FILE = "owner";

    private static final AtomicInteger DIRECTORY_COUNTER = new AtomicInteger();

    private final List<Path> directories;
    private final AtomicInteger next = new AtomicInteger();
    private final Thread shutdownHook;
    private final Object lock = new Object();
    @GuardedBy("lock")
    private boolean closed;

    /**
     * Creates this environment's directory under each of {@code tmpDirs}.
     *
     * @param tmpDirs  the configured temp directories (shuffle.tmp-dirs), at least one
     * @param optionKey the option to name in errors
     * @throws IllegalArgumentException naming the directory and the option when one cannot be created or written
     */
    public FileChannelManager(List<String> tmpDirs, String optionKey) {
        List<Path> created = new ArrayList<>(tmpDirs.size());
        String self = ownerLine(ProcessHandle.current());
        try {
            for (String tmpDir : tmpDirs) {
                Path base = Paths.get(tmpDir).toAbsolutePath();
                cleanOrphans(base);
                Path dir = base.resolve(DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-"
                        + DIRECTORY_COUNTER.incrementAndGet());
                try {
                    Files.createDirectories(dir);
                    created.add(dir);
                    Files.writeString(dir.resolve(OWNER_FILE), self, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new IllegalArgumentException(optionKey + ": cannot create and write directory " + dir
                            + " in " + base + " (" + e + "); " + FileErrors.explain(e, null, optionKey), e);
                } catch (SecurityException e) {
                    throw new IllegalArgumentException(optionKey + ": cannot create and write directory " + dir
                            + " in " + base + " (" + e + "); make it writable or choose another directory", e);
                }
            }
        } catch (RuntimeException e) {
            for (Path dir : created) {
                deleteRecursively(dir);
            }
            throw e;
        }
        this.directories = List.copyOf(created);
        this.shutdownHook = new Thread(this::deleteDirectories, "sluice-tmp-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        LOG.debug("Blocking partitions go to {}", directories);
    }

    /** The environment's directories, one per configured temp directory. */
    public List<Path> directories() {
        return directories;
    }

    /** The directory for the next partition: round-robin across the configured temp directories. */
    public Path nextDirectory() {
        return directories.get(Math.floorMod(next.getAndIncrement(), directories.size()));
    }

    /**
     * Makes {@code dir}, one of this environment's directories, again after something else deleted it (a temp-file
     * cleaner, an operator), so that this and later partitions can still write there; logs a warning. The partitions
     * that were in it are lost; their readers fail as for any missing file.
     *
     * @return false when there is nothing to do: the directory exists, or this manager is closed
     * @throws IOException naming the directory when it cannot be made again
     */
    public boolean recreateDeleted(Path dir) throws IOException {
        synchronized (lock) {
            if (closed || Files.isDirectory(dir)) {
                return false;
            }
            LOG.warn("Directory {} of this environment was deleted by something else, with the blocking partitions "
                    + "in it; making it again for new partitions", dir);
            try {
                Files.createDirectories(dir);
                Files.writeString(dir.resolve(OWNER_FILE), ownerLine(ProcessHandle.current()), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IOException("the directory " + dir + " was deleted by something else and cannot be made "
                        + "again: " + e, e);
            }
            return true;
        }
    }

    /** Deletes the directories with everything in them; idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook runs (or ran) anyway.
        }
        deleteDirectories();
    }

    private void deleteDirectories() {
        for (Path dir : directories) {
            deleteRecursively(dir);
        }
    }

    /** Deletes directories of processes of this user that no longer run. Never fails the caller. */
    private static void cleanOrphans(Path base) {
        if (!Files.isDirectory(base)) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, DIRECTORY_PREFIX + "*")) {
            for (Path dir : dirs) {
                if (isOrphan(dir)) {
                    LOG.info("Deleting {}: left by a shuffle environment whose process is gone", dir);
                    deleteRecursively(dir);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not look for directories of crashed processes in {}: {}", base, e.toString());
        }
    }

    private static boolean isOrphan(Path dir) {
        try {
            if (!Files.isDirectory(dir) || !Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                return false;
            }
            Path ownerFile = dir.resolve(OWNER_FILE);
            if (!Files.isRegularFile(ownerFile)) {
                // Being created right now by another process, or not ours: only old ones count.
                return Files.getLastModifiedTime(dir).toMillis() < System.currentTimeMillis() - 60_000;
            }
            String owner = Files.readString(ownerFile, StandardCharsets.UTF_8).trim();
            String[] parts = owner.split(" ", 2);
            long pid = Long.parseLong(parts[0]);
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            // A pid that was reused by another process: the start time tells them apart.
            return process.isEmpty() || !ownerLine(process.get()).equals(owner);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String ownerLine(ProcessHandle process) {
        return process.pid() + " " + process.info().startInstant().map(Object::toString).orElse("?");
    }

    /** Deletes a file or a directory tree; logs what it cannot delete. */
    public static void deleteRecursively(Path path) {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                try (DirectoryStream<Path> children = Files.newDirectoryStream(path)) {
                    for (Path child : children) {
                        deleteRecursively(child);
                    }
                }
            }
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", path, e.toString());
        }
    }

    @Override
    public String toString() {
        return "file channel manager " + directories;
    }
}
