package io.sluice.netty.gate;

import io.sluice.api.InFlightDataSink;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * Persists the data in flight of one channel for a checkpoint ({@link SingleInputGate#startPersisting}): finds the
 * data buffers of the channel's stream that come before its ending event and hands each to the sink once, as a
 * retained read-only slice of its own (the same bytes still go to the consumer).
 *
 * <p>Places: a channel numbers what it receives. Its n-th data buffer or non-priority event (counting from 0) sits at
 * place 2n + 1; a priority event received after n of them sits at place 2n, ahead of the n-th, although the channel
 * hands it out before all of them. A data buffer comes before an event when its place is lower. A remote channel
 * reports real places; a local channel reads its producer's subpartition, where the producer has already put a
 * priority event in front of the data it overtook (and persists that data itself), so it holds nothing it received
 * and reports {@link #UNPLACED} for what it hands out: while persisting, each data buffer it hands out is persisted.
 *
 * <p>The persister remembers a copy of the last event of each kind (priority or not) the consumer took from the
 * channel, with its place: a checkpoint typically starts when the consumer took a barrier, often this channel's own,
 * and then only the data received before that barrier is persisted. One heap copy per event taken, into a buffer
 * that is reused; nothing per data buffer.
 *
 * <p>Consumer thread only; the channel's hooks take its locks for a moment, and the sink and the predicate run with
 * no lock held.
 */
final class ChannelPersister {

    /** The place of whatever a channel that holds nothing it received hands out: after every place. */
    static final long UNPLACED = Long.MAX_VALUE;

    private final InputChannel channel;
    private final RememberedEvent lastEvent = new RememberedEvent();
    private final RememberedEvent lastPriorityEvent = new RememberedEvent();
    /** Persisting, and the channel's ending event not taken yet. */
    private boolean active;
    /** While active: the data buffers from this place on were not handed at the start. */
    private long persistFrom;

    ChannelPersister(InputChannel channel) {
        this.channel = channel;
    }

    /** Whether data the consumer takes from the channel may still have to be persisted. */
    boolean isActive() {
        return active;
    }

    /**
     * Starts persisting (again): hands the held data buffers before the channel's ending event at once, and stays
     * active when that event is neither held nor taken. The predicate sees the remembered and the held events in
     * stream order, until it accepts one.
     *
     * <p>Ownership: each buffer handed is the sink's, also when the sink throws; held buffers retained for the sink
     * but not handed because it threw are released here.
     */
    void start(Predicate<ByteBuffer> endsPersisting, InFlightDataSink sink) {
        active = false;
        List<HeldEvent> events = new ArrayList<>();
        lastEvent.addTo(events);
        lastPriorityEvent.addTo(events);
        long nextPlace = channel.collectHeldEvents(events);
        // Stable: of a remembered and a held priority event at the same place, the remembered came first.
        events.sort(Comparator.comparingLong(HeldEvent::place));
        for (HeldEvent event : events) {
            if (endsPersisting.test(event.payload().asReadOnlyBuffer())) {
                hand(channel.retainHeldData(0, event.place()), sink);
                return;
            }
        }
        hand(channel.retainHeldData(0, nextPlace), sink);
        persistFrom = nextPlace;
        active = true;
    }

    /** Stops persisting; what was handed stays the sink's. */
    void stop() {
        active = false;
    }

    /** The consumer took {@code data} from the channel while this is active: hands it unless it was handed already. */
    void dataTaken(Buffer data, InFlightDataSink sink) {
        if (channel.placeOfLastTaken(false) >= persistFrom) {
            int index = channel.channelIndex();
            sink.accept(index, new ShuffleBufferOrEvent(index, data.readOnlySlice().retainBuffer(), false));
        }
    }

    /**
     * The consumer took a user event from the channel: remembers it, and when this is active and the event ends
     * persisting, stops, first handing the held data an ending priority event overtook in the channel.
     *
     * @param endsPersisting the predicate while the gate persists, else null (then only the event is remembered)
     * @param sink           the sink while the gate persists, else null
     */
    void eventTaken(Buffer event, boolean priority, Predicate<ByteBuffer> endsPersisting, InFlightDataSink sink) {
        long place = channel.placeOfLastTaken(priority);
        RememberedEvent remembered = priority ? lastPriorityEvent : lastEvent;
        remembered.remember(EventSerializer.payloadOf(event), place);
        if (active && endsPersisting.test(remembered.view())) {
            active = false;
            if (priority) {
                hand(channel.retainHeldData(persistFrom, place), sink);
            }
        }
    }

    /** Hands {@code buffers} in order; releases those the sink never got because it threw. */
    private void hand(List<Buffer> buffers, InFlightDataSink sink) {
        int index = channel.channelIndex();
        int handed = 0;
        try {
            while (handed < buffers.size()) {
                Buffer buffer = buffers.get(handed++);
                sink.accept(index, new ShuffleBufferOrEvent(index, buffer, false));
            }
        } finally {
            for (int i = handed; i < buffers.size(); i++) {
                buffers.get(i).recycleBuffer();
            }
        }
    }

    /** A copy of an event's payload and its place; the copy's memory is reused for the next event. */
    private static final class RememberedEvent {

        private ByteBuffer copy;
        private long place;

        void remember(ByteBuffer payload, long place) {
            if (copy == null || copy.capacity() < payload.remaining()) {
                copy = ByteBuffer.allocate(Math.max(64, payload.remaining()));
            }
            copy.clear();
            copy.put(payload.duplicate());
            copy.flip();
            this.place = place;
        }

        /** A read-only view of the payload, for the predicate. */
        ByteBuffer view() {
            return copy.asReadOnlyBuffer();
        }

        /** Adds the remembered event, if any, to {@code events}. */
        void addTo(List<HeldEvent> events) {
            if (copy != null) {
                events.add(new HeldEvent(place, copy.duplicate()));
            }
        }
    }
}
