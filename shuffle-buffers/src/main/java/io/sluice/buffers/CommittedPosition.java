package io.sluice.buffers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How far a {@link BufferBuilder} has published its writes, and whether it finished: the one piece of state its
 * writer thread shares with the reading {@link BufferConsumer}s.
 *
 * <p>Both facts live in one volatile int so that a reader gets a consistent pair from one read, and the write
 * path needs no lock: {@code value >= 0} means "still writing, {@code value} bytes committed"; {@code value < 0}
 * means "finished, {@code -value - 1} bytes committed" (the {@code - 1} lets a finished empty buffer be told from
 * an unfinished one). The writer's byte writes happen before its volatile write of the position, and a reader
 * reads the position before the bytes, so every committed byte is visible to the reader.
 *
 * <p>Threads: written by the single writer thread only; read by any thread.
 */
final class CommittedPosition {

    /**
     * Release stores for {@link #commit}: on the write path a plain volatile store would add a full fence per record,
     * which would be the hottest spot of the JMH benchmark {@code RecordThroughputBenchmark.records} with 8-byte
     * records; a release store still orders the byte writes before the position, and readers read the position with
     * volatile semantics.
     */
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(CommittedPosition.class, "value", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int value;

    private CommittedPosition(int value) {
        this.value = value;
    }

    /** A position for a builder that has not committed anything yet. */
    static CommittedPosition unfinished() {
        return new CommittedPosition(0);
    }

    /** A position for a complete buffer of {@code bytes} bytes. */
    static CommittedPosition finishedAt(int bytes) {
        return new CommittedPosition(encodeFinished(bytes));
    }

    /** Writer only: publishes {@code bytes} committed bytes. */
    void commit(int bytes) {
        VALUE.setRelease(this, bytes);
    }

    /** Writer only: publishes {@code bytes} committed bytes and the end of writing. */
    void finish(int bytes) {
        value = encodeFinished(bytes);
    }

    /** One consistent snapshot; decode it with {@link #isFinished(int)} and {@link #bytes(int)}. */
    int read() {
        return value;
    }

    static boolean isFinished(int snapshot) {
        return snapshot < 0;
    }

    static int bytes(int snapshot) {
        return snapshot < 0 ? -snapshot - 1 : snapshot;
    }

    private static int encodeFinished(int bytes) {
        return -bytes - 1;
    }
}
