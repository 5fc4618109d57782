package io.sluice.bench.trace;

import io.sluice.buffers.BufferTrace.Event;
import io.sluice.buffers.BufferTrace.Hop;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Links the events of a {@link io.sluice.buffers.BufferTrace} into one {@link BufferJourney} per data buffer the
 * server wrote. A server WRITE names the buffer by channel stream and sequence number and by its producer-side
 * segment; the client's CLIENT_READ and ENQUEUE name the same stream and sequence number, and ENQUEUE the
 * client-side segment. From there:
 * <ul>
 *   <li>COMMIT: the producer segment's last commit after its previous write and before this one;</li>
 *   <li>NOTIFY: the stream's last notification between that commit and the write (none: the server was already
 *       sending to that reader);</li>
 *   <li>SOCKET_DONE: the producer segment's first socket completion after the write;</li>
 *   <li>TAKE, then RECYCLE: the client segment's first take after the enqueue, its first recycle after the take;</li>
 *   <li>CREDIT: the stream's first credit announcement after that recycle.</li>
 * </ul>
 * Single-threaded.
 */
public final class TraceLinker {

    private TraceLinker() {
    }

    /** @return one journey per traced WRITE, in write order */
    public static List<BufferJourney> link(List<Event> trace) {
        List<Event> events = new ArrayList<>(trace);
        events.sort(Comparator.comparingLong(Event::nanos));
        Map<Long, List<Event>> bySegment = new HashMap<>();
        Map<Integer, List<Event>> byStream = new HashMap<>();
        Map<Long, Event> clientReads = new HashMap<>();
        Map<Long, Event> enqueues = new HashMap<>();
        List<Event> writes = new ArrayList<>();
        for (Event e : events) {
            switch (e.hop()) {
                case COMMIT, SOCKET_DONE, TAKE, RECYCLE -> bySegment.computeIfAbsent(segmentKey(e.hop(), e.segment()),
                        k -> new ArrayList<>()).add(e);
                case CREDIT_NOTIFY -> {
                    // Counted per run by TraceTable, not linked to a buffer.
                }
                case NOTIFY, CREDIT -> byStream.computeIfAbsent(e.stream(), k -> new ArrayList<>()).add(e);
                case CLIENT_READ -> clientReads.put(bufferKey(e), e);
                case ENQUEUE -> enqueues.put(bufferKey(e), e);
                case WRITE -> writes.add(e);
                default -> throw new IllegalStateException("unknown hop " + e.hop());
            }
        }
        Map<Integer, Long> lastWriteOfSegment = new HashMap<>();
        List<BufferJourney> journeys = new ArrayList<>(writes.size());
        for (Event write : writes) {
            BufferJourney journey = new BufferJourney(write.stream(), write.seq());
            journey.set(Hop.WRITE, write.nanos(), write.threadId());
            long after = lastWriteOfSegment.getOrDefault(write.segment(), Long.MIN_VALUE);
            lastWriteOfSegment.put(write.segment(), write.nanos());
            Event commit = last(bySegment.get(segmentKey(Hop.COMMIT, write.segment())), after, write.nanos());
            if (commit != null) {
                journey.set(Hop.COMMIT, commit.nanos(), commit.threadId());
                Event notify = last(byStream.get(write.stream()), commit.nanos(), write.nanos(), Hop.NOTIFY);
                if (notify != null) {
                    journey.set(Hop.NOTIFY, notify.nanos(), notify.threadId());
                }
            }
            setFirst(journey, Hop.SOCKET_DONE, bySegment.get(segmentKey(Hop.SOCKET_DONE, write.segment())),
                    write.nanos());
            Event read = clientReads.get(bufferKey(write));
            if (read != null) {
                journey.set(Hop.CLIENT_READ, read.nanos(), read.threadId());
            }
            Event enqueue = enqueues.get(bufferKey(write));
            if (enqueue == null) {
                journeys.add(journey);
                continue;
            }
            journey.set(Hop.ENQUEUE, enqueue.nanos(), enqueue.threadId());
            Event take = setFirst(journey, Hop.TAKE, bySegment.get(segmentKey(Hop.TAKE, enqueue.segment())),
                    enqueue.nanos());
            Event recycle = take == null ? null : setFirst(journey, Hop.RECYCLE,
                    bySegment.get(segmentKey(Hop.RECYCLE, enqueue.segment())), take.nanos());
            if (recycle != null) {
                Event credit = first(byStream.get(write.stream()), recycle.nanos(), Hop.CREDIT);
                if (credit != null) {
                    journey.set(Hop.CREDIT, credit.nanos(), credit.threadId());
                }
            }
            journeys.add(journey);
        }
        return journeys;
    }

    private static long segmentKey(Hop hop, int segment) {
        return ((long) hop.ordinal() << 32) | (segment & 0xFFFF_FFFFL);
    }

    private static long bufferKey(Event e) {
        return ((long) e.stream() << 32) | (e.seq() & 0xFFFF_FFFFL);
    }

    private static Event setFirst(BufferJourney journey, Hop hop, List<Event> candidates, long notBefore) {
        Event first = first(candidates, notBefore, hop);
        if (first != null) {
            journey.set(hop, first.nanos(), first.threadId());
        }
        return first;
    }

    /** The first event of {@code hop} at or after {@code notBefore}, or null. */
    private static Event first(List<Event> sorted, long notBefore, Hop hop) {
        if (sorted == null) {
            return null;
        }
        for (int i = lowerBound(sorted, notBefore); i < sorted.size(); i++) {
            if (sorted.get(i).hop() == hop) {
                return sorted.get(i);
            }
        }
        return null;
    }

    /** The last event in {@code (after, notAfter]} of the list's own hop, or null. */
    private static Event last(List<Event> sorted, long after, long notAfter) {
        return sorted == null ? null : last(sorted, after, notAfter, sorted.get(0).hop());
    }

    private static Event last(List<Event> sorted, long after, long notAfter, Hop hop) {
        if (sorted == null) {
            return null;
        }
        for (int i = lowerBound(sorted, notAfter + 1) - 1; i >= 0 && sorted.get(i).nanos() > after; i--) {
            if (sorted.get(i).hop() == hop) {
                return sorted.get(i);
            }
        }
        return null;
    }

    /** The index of the first event at or after {@code nanos}. */
    private static int lowerBound(List<Event> sorted, long nanos) {
        int low = 0;
        int high = sorted.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (sorted.get(mid).nanos() < nanos) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
