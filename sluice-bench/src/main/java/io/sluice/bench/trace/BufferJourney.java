package io.sluice.bench.trace;

import io.sluice.buffers.BufferTrace.Hop;

/**
 * One data buffer's way through the shuffle, as a trace recorded it: the time and thread of each hop it passed, or
 * nothing for a hop the trace did not see (a reader that needed no notification, a recycle that announced no
 * credit). Built by {@link TraceLinker}; immutable after it.
 */
public final class BufferJourney {

    /** Each hop's predecessor in a latency table: the hop whose time a hop's latency is measured from. */
    private static final Hop[] FROM = new Hop[Hop.values().length];

    static {
        FROM[Hop.NOTIFY.ordinal()] = Hop.COMMIT;
        FROM[Hop.WRITE.ordinal()] = Hop.NOTIFY; // or COMMIT when there was no notification
        FROM[Hop.SOCKET_DONE.ordinal()] = Hop.WRITE;
        FROM[Hop.CLIENT_READ.ordinal()] = Hop.WRITE;
        FROM[Hop.ENQUEUE.ordinal()] = Hop.CLIENT_READ;
        FROM[Hop.TAKE.ordinal()] = Hop.ENQUEUE;
        FROM[Hop.RECYCLE.ordinal()] = Hop.TAKE;
        FROM[Hop.CREDIT.ordinal()] = Hop.RECYCLE;
    }

    /** The hops along which threads hand the buffer over (the socket completion is a side branch of WRITE). */
    private static final Hop[] PATH = {Hop.COMMIT, Hop.NOTIFY, Hop.WRITE, Hop.CLIENT_READ, Hop.ENQUEUE, Hop.TAKE,
            Hop.RECYCLE, Hop.CREDIT};

    private final int stream;
    private final int sequenceNumber;
    private final long[] nanos = new long[Hop.values().length];
    private final long[] threads = new long[Hop.values().length];
    private final boolean[] seen = new boolean[Hop.values().length];

    BufferJourney(int stream, int sequenceNumber) {
        this.stream = stream;
        this.sequenceNumber = sequenceNumber;
    }

    void set(Hop hop, long atNanos, long threadId) {
        nanos[hop.ordinal()] = atNanos;
        threads[hop.ordinal()] = threadId;
        seen[hop.ordinal()] = true;
    }

    /** The receiving channel's id hash. */
    public int stream() {
        return stream;
    }

    /** The buffer's sequence number on its channel. */
    public int sequenceNumber() {
        return sequenceNumber;
    }

    public boolean has(Hop hop) {
        return seen[hop.ordinal()];
    }

    /** The time of {@code hop} ({@code System.nanoTime()} of the recording JVM); only if {@link #has}. */
    public long nanos(Hop hop) {
        return nanos[hop.ordinal()];
    }

    /** The thread that recorded {@code hop}; only if {@link #has}. */
    public long thread(Hop hop) {
        return threads[hop.ordinal()];
    }

    /** The hop {@code hop}'s latency is measured from in this journey, or null (COMMIT, or nothing before it). */
    public Hop from(Hop hop) {
        Hop from = FROM[hop.ordinal()];
        if (from == Hop.NOTIFY && !has(Hop.NOTIFY)) {
            from = Hop.COMMIT;
        }
        return from != null && has(from) ? from : null;
    }

    /** Whether the buffer changed threads on its way into {@code hop} (from the previous hop seen on the path). */
    public boolean handOffAt(Hop hop) {
        Hop previous = null;
        for (Hop h : PATH) {
            if (h == hop) {
                return previous != null && has(hop) && thread(previous) != thread(hop);
            }
            if (has(h)) {
                previous = h;
            }
        }
        return false;
    }

    /** Thread changes along the buffer's path, the network crossings included. */
    public int handOffs() {
        int count = 0;
        for (Hop hop : PATH) {
            if (handOffAt(hop)) {
                count++;
            }
        }
        return count;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("buffer " + sequenceNumber + " of stream " + stream + ":");
        for (Hop hop : Hop.values()) {
            if (has(hop)) {
                out.append(' ').append(hop).append('@').append(nanos(hop)).append("/t").append(thread(hop));
            }
        }
        return out.append(", ").append(handOffs()).append(" hand-offs").toString();
    }
}
