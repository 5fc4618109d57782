package io.sluice.buffers;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A diagnostic, off by default: the per-buffer trace mode. It takes a timestamp for every hop a buffer takes through
 * the shuffle (producer commit, server notification, server write, socket write done, client read, channel enqueue,
 * consumer take, recycle, credit announcement), kept in one preallocated ring so that a run can be cut into per-hop
 * latencies afterwards (the sluice-bench tool's {@code io.sluice.bench.trace.TraceTable} turns a dump into a table).
 *
 * <p>Switching it on: start the JVM with {@code -Dsluice.trace=<entries>} (a positive number of ring entries; the
 * ring keeps the last ones), and add {@code -Dsluice.trace.file=<path>} to have the ring written to that file when the
 * JVM exits, one event a line ({@link Event#toLine()}, see {@link #dump(Path)}). Without {@code sluice.trace} nothing
 * is recorded, the ring has no entries and no file is written.
 *
 * <p>Cost when off: nothing. {@link #ENABLED} is a {@code static final} constant read once, at class initialisation,
 * and every call site is written {@code if (BufferTrace.ENABLED) BufferTrace.record(...)}, so the JIT folds the test
 * and drops the call and its arguments; no argument is computed and nothing is allocated ({@code BufferTraceGuardTest}
 * in shuffle-tests checks both). {@link #record} itself does not test the switch: a call site that forgets the guard
 * fails at once with tracing off (an {@link ArithmeticException}: the ring has no entries), instead of costing the
 * data path a call.
 *
 * <p>Identity: an event names its buffer by stream (the receiving channel's id hash, the same on both ends of a
 * connection) and sequence number where the hop knows them, and by its memory segment's identity hash where it
 * holds the buffer; the table tool links a buffer's hops through both.
 *
 * <p>Threads: any thread records; a writer claims a slot with one atomic increment and fills it with plain stores,
 * then stamps it, so a reader of a running ring skips slots being written. Meant for measurements, not production
 * (when on, the shared counter and {@code System.nanoTime()} add tens of nanoseconds per hop).
 */
public final class BufferTrace {

    /** The hops of one buffer, in the order a buffer passes them. */
    public enum Hop {
        /** The producer made the buffer readable: finished it, or flushed it. Producer or flusher thread. */
        COMMIT,
        /** The server's event loop took a producer's notification for the buffer's reader. */
        NOTIFY,
        /** The server's event loop wrote the buffer to the connection. */
        WRITE,
        /** Netty released the written buffer: its bytes went to the socket. Server event loop. */
        SOCKET_DONE,
        /** The client's event loop decoded the buffer's header. */
        CLIENT_READ,
        /** The client's event loop queued the buffer in its input channel. */
        ENQUEUE,
        /** The consumer thread took the buffer from its input channel. */
        TAKE,
        /** The buffer's last reference was released: its segment went back to its owner. */
        RECYCLE,
        /** The client's event loop wrote a credit announcement for the channel. */
        CREDIT,
        /**
         * The client's event loop took a credit notification from another thread (a wake-up for credit; credit it
         * picks up while reading needs none). Not a hop of one buffer: counted per buffer by the table.
         */
        CREDIT_NOTIFY
    }

    private static final Hop[] HOPS = Hop.values();

    /** Longs per ring entry: stamp, time, hop and thread, stream and sequence number, segment identity. */
    private static final int SLOT = 5;

    /** Whether tracing is on; a constant, fixed at class initialisation. */
    public static final boolean ENABLED;

    private static final long[] RING;
    private static final int ENTRIES;
    private static final AtomicLong NEXT = new AtomicLong();

    static {
        int entries = Integer.getInteger("sluice.trace", 0);
        ENABLED = entries > 0;
        ENTRIES = Math.max(entries, 0);
        RING = new long[ENTRIES * SLOT];
        String file = System.getProperty("sluice.trace.file");
        if (ENABLED && file != null) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> dump(Path.of(file)), "sluice-trace-dump"));
        }
    }

    private BufferTrace() {
    }

    /**
     * Records one hop now. Call only {@code if (BufferTrace.ENABLED)}.
     *
     * @param stream  the receiving channel's id hash, or 0 when the hop does not know it
     * @param seq     the buffer's sequence number, or -1 when the hop does not know it
     * @param segment the buffer's memory segment, or null when the hop does not hold it
     */
    public static void record(Hop hop, int stream, int seq, MemorySegment segment) {
        // No check of ENABLED here: every call site checks it (see the class comment).
        long index = NEXT.getAndIncrement();
        int base = (int) (index % ENTRIES) * SLOT;
        long[] ring = RING;
        ring[base] = 0;
        ring[base + 1] = System.nanoTime();
        ring[base + 2] = ((long) hop.ordinal() << 56) | (Thread.currentThread().getId() & 0xFFFF_FFFF_FFFFL);
        ring[base + 3] = ((long) stream << 32) | (seq & 0xFFFF_FFFFL);
        ring[base + 4] = segment == null ? 0 : System.identityHashCode(segment);
        ring[base + 0] = index + 1;
    }

    /** Records a producer commit of the buffer behind {@code consumer}. */
    public static void committed(BufferConsumer consumer) {
        if (ENABLED && consumer != null && consumer.isBuffer()) {
            record(Hop.COMMIT, 0, -1, consumer.segment());
        }
    }

    /** Records a producer commit of the buffer {@code builder} writes (it is about to be finished). */
    public static void committed(BufferBuilder builder) {
        if (ENABLED) {
            record(Hop.COMMIT, 0, -1, builder.segment());
        }
    }

    /** Events recorded since the JVM started (also those the ring has overwritten). */
    public static long recorded() {
        return NEXT.get();
    }

    /** One recorded hop. */
    public record Event(long nanos, Hop hop, long threadId, int stream, int seq, int segment) {

        /** The line {@link #dump(Path)} writes: {@code nanos hop thread stream seq segment}. */
        public String toLine() {
            return nanos + " " + hop + " " + threadId + " " + stream + " " + seq + " " + segment;
        }

        /** Parses a line of {@link #toLine()}. */
        public static Event parse(String line) {
            String[] f = line.trim().split(" ");
            if (f.length != 6) {
                throw new IllegalArgumentException("not a trace line (nanos hop thread stream seq segment): " + line);
            }
            return new Event(Long.parseLong(f[0]), Hop.valueOf(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]), Integer.parseInt(f[5]));
        }
    }

    /** The events the ring holds now, oldest first; slots being written are skipped. Any thread. */
    public static List<Event> snapshot() {
        List<Event> events = new ArrayList<>();
        if (!ENABLED) {
            return events;
        }
        long end = NEXT.get();
        long start = Math.max(0, end - ENTRIES);
        for (long index = start; index < end; index++) {
            int base = (int) (index % ENTRIES) * SLOT;
            if (RING[base] != index + 1) {
                continue;
            }
            long hopAndThread = RING[base + 2];
            long key = RING[base + 3];
            events.add(new Event(RING[base + 1], HOPS[(int) (hopAndThread >>> 56)], hopAndThread & 0xFFFF_FFFF_FFFFL,
                    (int) (key >> 32), (int) key, (int) RING[base + 4]));
        }
        return events;
    }

    /** Writes {@link #snapshot()} to {@code file}, one {@link Event#toLine()} a line. */
    public static void dump(Path file) {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            for (Event event : snapshot()) {
                out.println(event.toLine());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing the buffer trace to " + file, e);
        }
    }
}
