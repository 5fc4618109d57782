package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Short text streams for gate tests: a remote channel handed text buffers and events the way its connection's event
 * loop hands them over, and a gate's elements read back as text, so that a test states a stream in one line.
 *
 * <p>Stateless; each method on the thread its channel or gate method names (the test thread plays both).
 */
final class TextElements {

    /** Whether an event's payload is the text "barrier": the ending event these tests persist up to. */
    static final Predicate<ByteBuffer> BARRIER = payload -> "barrier".equals(utf8(payload));

    private TextElements() {
    }

    /** The event loop's part of a data buffer: fills one of the channel's buffers with {@code payload}. */
    static void receive(RemoteInputChannel channel, int sequenceNumber, String payload) {
        Buffer buffer = channel.requestBuffer();
        assertNotNull(buffer, "the channel has a buffer for sequence number " + sequenceNumber);
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        buffer.getMemorySegment().put(0, bytes, 0, bytes.length);
        buffer.setSize(bytes.length);
        channel.onBuffer(buffer, sequenceNumber, 0, false);
    }

    /** The event loop's part of a user event, priority or not. */
    static void receiveEvent(RemoteInputChannel channel, int sequenceNumber, String payload, boolean priority) {
        channel.onBuffer(EventSerializer.userEvent(utf8(payload)), sequenceNumber, 0, priority);
    }

    /**
     * The next element as "channel:text", its kind before the text for an event ("channel:event text",
     * "channel:priority text", "channel:announcement text"); recycled. Null when there is none now.
     */
    static String take(InputGate gate) throws Exception {
        Optional<BufferOrEvent> next = gate.pollNext();
        if (next.isEmpty()) {
            return null;
        }
        BufferOrEvent element = next.get();
        try {
            String kind = element.isAnnouncement() ? "announcement " : element.isPriority() ? "priority "
                    : element.isEvent() ? "event " : "";
            return element.channelIndex() + ":" + kind + utf8(element.data());
        } finally {
            element.recycle();
        }
    }

    /** {@link #take} until the gate has nothing now. */
    static List<String> takeAll(InputGate gate) throws Exception {
        List<String> taken = new ArrayList<>();
        for (String next = take(gate); next != null; next = take(gate)) {
            taken.add(next);
        }
        return taken;
    }

    static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    static String utf8(ByteBuffer bytes) {
        return StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
    }
}
