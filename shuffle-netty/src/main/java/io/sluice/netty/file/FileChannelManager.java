package io.sluice.netty.file;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The temporary directories of one environment: one directory of its own under each configured temp directory,
 * handed out round-robin to blocking partitions.
 *
 * <p>Ownership is decided by a lock the kernel enforces, never by pids: each directory is named
 * {@code sluice-shuffle-<random UUID>} and holds a {@value #LOCK_FILE} file whose lock ({@link FileChannel#tryLock})
 * the environment holds for its whole life. Pids and start times mean nothing across PID namespaces (containers
 * sharing a host directory) or hosts (NFS), a lock does: the kernel drops it when the process ends, however it
 * ends. At creation the manager deletes the directories of the same user whose lock it can take (their owner is
 * gone), and leaves alone those whose lock is held, those it cannot lock or read, a young one without a lock file
 * (in the middle of its creation), and one of an older layout (an {@code owner} file with a pid and no lock file:
 * nothing proves its owner gone). {@link #close()} deletes its directories with everything in them, and so does a
 * JVM shutdown hook when the environment is never closed.
 *
 * <p>Within one JVM a lock is per process, and closing any channel of a locked file would release the lock at the
 * kernel: so the manager never opens the lock file of a directory an environment of this JVM holds (it knows them),
 * and a channel that finds a lock held by another copy of this class in the JVM (another class loader) is kept open
 * for the JVM's life instead of being closed.
 *
 * <p>Any thread: the directories are fixed at construction; the round-robin counter is atomic; close is idempotent.
 */
public final class FileChannelManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FileChannelManager.class);

    /** Prefix of every environment directory. */
    static final String DIRECTORY_PREFIX = "sluice-shuffle-";
    /** The file in each directory whose lock its environment holds; its text says who, for people only. */
    static final String LOCK_FILE = "lock";
    /** The lock file before it is locked and renamed: no other process ever sees {@value #LOCK_FILE} unlocked. */
    private static final String PENDING_LOCK_FILE = "lock.pending";
    /** Marks a directory of the older, pid-based layout. */
    private static final String LEGACY_OWNER_FILE = "owner";
    /** How old a directory without a lock file must be before it counts as abandoned during its creation. */
    private static final long CREATION_GRACE_MILLIS = 60_000;

    /** The directories whose locks environments of this JVM (this class loader) hold. */
    private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();
    /** Channels that found a lock held elsewhere in this JVM: closing them would release that lock. Never closed. */
    private static final List<FileChannel> KEPT_OPEN = new CopyOnWriteArrayList<>();

    private final List<Path> directories;
    /** One per directory, in the same order: the channels holding the directories' locks. */
    @GuardedBy("lock")
    private final FileChannel[] locks;
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
     * @throws IllegalArgumentException naming the directory and the option when one cannot be created, written or
     *                                  locked
     */
    public FileChannelManager(List<String> tmpDirs, String optionKey) {
        List<Path> created = new ArrayList<>(tmpDirs.size());
        List<FileChannel> held = new ArrayList<>(tmpDirs.size());
        try {
            for (String tmpDir : tmpDirs) {
                Path base = Paths.get(tmpDir).toAbsolutePath();
                cleanOrphans(base);
                Path dir = base.resolve(DIRECTORY_PREFIX + UUID.randomUUID());
                try {
                    Files.createDirectories(base);
                    Files.createDirectory(dir);
                    created.add(dir);
                    held.add(lockNewDirectory(dir));
                } catch (IOException e) {
                    throw new IllegalArgumentException(optionKey + ": cannot create, write and lock directory " + dir
                            + " in " + base + " (" + e + "); " + FileErrors.explain(e, null, optionKey), e);
                } catch (SecurityException e) {
                    throw new IllegalArgumentException(optionKey + ": cannot create, write and lock directory " + dir
                            + " in " + base + " (" + e + "); make it writable or choose another directory", e);
                }
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < created.size(); i++) {
                deleteOwnDirectory(created.get(i), i < held.size() ? held.get(i) : null);
            }
            throw e;
        }
        this.directories = List.copyOf(created);
        this.locks = held.toArray(new FileChannel[0]);
        this.shutdownHook = new Thread(this::deleteDirectories, "sluice-tmp-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        LOG.debug("Blocking partitions go to {}", directories);
    }

    /**
     * Creates {@code dir}'s lock file under a pending name, locks it, writes who holds it, and only then gives it
     * its name: a scan by another process sees either no lock file (a young directory, left alone) or a held lock.
     *
     * @return the channel that holds the lock; closing it gives the lock up
     */
    private static FileChannel lockNewDirectory(Path dir) throws IOException {
        Path pending = dir.resolve(PENDING_LOCK_FILE);
        FileChannel channel = FileChannel.open(pending, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            if (channel.tryLock() == null) {
                throw new IOException("the new lock file " + pending + " is locked by another process");
            }
            channel.write(ByteBuffer.wrap(describeOwner().getBytes(StandardCharsets.UTF_8)));
            Files.move(pending, dir.resolve(LOCK_FILE), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
        HELD_HERE.add(dir);
        return channel;
    }

    /** Who holds the lock, for a person looking at the directory; nothing reads it back. */
    private static String describeOwner() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException | SecurityException e) {
            host = "?";
        }
        return "held by the shuffle environment of pid " + ProcessHandle.current().pid() + " (as its own PID namespace "
                + "sees it) on " + host + " since " + Instant.now() + "; its lock, not this text, says it is alive\n";
    }

    /** Whether an environment of this JVM holds {@code dir}'s lock; for tests. */
    static boolean heldInThisJvm(Path dir) {
        return HELD_HERE.contains(dir);
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
     * cleaner, an operator), with a new lock, so that this and later partitions can still write there; logs a
     * warning. The partitions that were in it are lost; their readers fail as for any missing file.
     *
     * @return false when there is nothing to do: the directory exists, or this manager is closed
     * @throws IOException naming the directory when it cannot be made again
     */
    public boolean recreateDeleted(Path dir) throws IOException {
        synchronized (lock) {
            if (closed || Files.isDirectory(dir)) {
                return false;
            }
            int index = directories.indexOf(dir);
            if (index < 0) {
                throw new IllegalArgumentException(dir + " is not a directory of this environment: " + directories);
            }
            LOG.warn("Directory {} of this environment was deleted by something else, with the blocking partitions "
                    + "in it; making it again for new partitions", dir);
            try {
                Files.createDirectories(dir);
                FileChannel previous = locks[index];
                locks[index] = lockNewDirectory(dir);
                closeQuietly(previous); // it locks the deleted lock file, another file than the new one
            } catch (IOException e) {
                throw new IOException("the directory " + dir + " was deleted by something else and cannot be made "
                        + "again: " + e, e);
            }
            return true;
        }
    }

    /** Deletes the directories with everything in them and gives their locks up; idempotent. */
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
        FileChannel[] held;
        synchronized (lock) {
            held = locks.clone();
        }
        for (int i = 0; i < directories.size(); i++) {
            deleteOwnDirectory(directories.get(i), held[i]);
        }
    }

    /**
     * Deletes a directory whose lock {@code held} holds (or null): its contents while the lock is held, so that no
     * other process takes it for an orphan meanwhile, then the lock goes, then the lock file and the directory.
     */
    private static void deleteOwnDirectory(Path dir, FileChannel held) {
        deleteContentsExceptLock(dir);
        if (held != null) {
            closeQuietly(held);
        }
        HELD_HERE.remove(dir);
        deleteRecursively(dir);
    }

    /** Deletes the directories of this user whose owners are gone (their lock is free). Never fails the caller. */
    private static void cleanOrphans(Path base) {
        if (!Files.isDirectory(base)) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, DIRECTORY_PREFIX + "*")) {
            for (Path dir : dirs) {
                cleanIfOrphan(dir);
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not look for directories of crashed processes in {}: {}", base, e.toString());
        }
    }

    private static void cleanIfOrphan(Path dir) {
        try {
            if (HELD_HERE.contains(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                    || !Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                return;
            }
            Path lockFile = dir.resolve(LOCK_FILE);
            if (!Files.exists(lockFile, LinkOption.NOFOLLOW_LINKS)) {
                if (!Files.exists(dir.resolve(LEGACY_OWNER_FILE))
                        && Files.getLastModifiedTime(dir).toMillis() < System.currentTimeMillis()
                        - CREATION_GRACE_MILLIS) {
                    LOG.info("Deleting {}: a shuffle environment's directory whose creation never completed", dir);
                    deleteRecursively(dir);
                }
                return;
            }
            FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
            FileLock taken;
            try {
                taken = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Held by another copy of this class in this JVM: closing this channel would release its lock.
                KEPT_OPEN.add(channel);
                return;
            } catch (IOException | RuntimeException e) {
                closeQuietly(channel);
                throw e;
            }
            if (taken == null) {
                closeQuietly(channel);
                return;
            }
            LOG.info("Deleting {}: left by a shuffle environment whose process is gone (its lock was free)", dir);
            deleteOwnDirectory(dir, channel);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Leaving {} alone: cannot tell whether its owner is gone ({})", dir, e.toString());
        }
    }

    private static void deleteContentsExceptLock(Path dir) {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                if (!child.getFileName().toString().equals(LOCK_FILE)) {
                    deleteRecursively(child);
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not delete the contents of {}: {}", dir, e.toString());
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing gives the lock up; nothing was written that could be lost.
        }
    }

    /** Deletes a file or a directory tree; logs what it cannot delete. */
    public static void deleteRecursively(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
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
