package io.sluice.netty.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One open read handle of a file, shared by reference count: the reader that opened it holds the first reference,
 * and each {@link FileSpan} it hands to a sender holds one more until the sender has written the span (or dropped
 * it). The handle is closed when the last reference goes, so a reader opens its file once however many spans it
 * sends, and a span in flight stays readable even after its reader was released (the file may be deleted meanwhile:
 * an open handle keeps its bytes).
 *
 * <p>Thread-safe: {@link #retain()} and {@link #release()} from any thread; the channel is used for positional
 * reads and transfers only, which may run concurrently.
 */
public final class SharedFileChannel {

    private final Path path;
    private final FileChannel channel;
    /** References held; the channel is closed when it drops to zero. */
    private final AtomicInteger references = new AtomicInteger(1);

    /** Wraps an open channel; the caller holds the first reference. */
    public SharedFileChannel(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** The file, for messages. */
    public Path path() {
        return path;
    }

    /** The open channel; valid while the caller holds a reference. Use positional reads and transfers only. */
    public FileChannel channel() {
        return channel;
    }

    /**
     * Adds a reference.
     *
     * @return this
     * @throws IllegalStateException when the last reference is already gone
     */
    public SharedFileChannel retain() {
        while (true) {
            int now = references.get();
            if (now <= 0) {
                throw new IllegalStateException("the read handle of " + path + " is already closed");
            }
            if (references.compareAndSet(now, now + 1)) {
                return this;
            }
        }
    }

    /**
     * Drops a reference; the last one closes the channel.
     *
     * @throws IllegalStateException when more references are released than were held
     */
    public void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            try {
                channel.close();
            } catch (IOException e) {
                // A read-only handle: nothing is lost when its close fails.
            }
        } else if (left < 0) {
            throw new IllegalStateException("the read handle of " + path + " was released once too often");
        }
    }

    /** References held now (for tests). */
    public int references() {
        return references.get();
    }

    /** Whether the channel is still open. */
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public String toString() {
        return "read handle of " + path + " (" + references.get() + " references)";
    }
}
