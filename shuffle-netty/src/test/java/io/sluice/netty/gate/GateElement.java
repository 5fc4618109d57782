package io.sluice.netty.gate;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.netty.testing.TestRecords;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One element a gate handed out, copied so that its buffer is recycled at once.
 *
 * @param channel the channel index
 * @param isEvent a user event rather than data
 * @param bytes   the data bytes, or the event's payload
 */
record GateElement(int channel, boolean isEvent, byte[] bytes) {

    /** The next element, blocking; null once the gate finished. Recycles the buffer. */
    static GateElement next(InputGate gate) throws IOException, InterruptedException {
        return copy(gate.getNext());
    }

    /** The next element without blocking; null when there is none now. Recycles the buffer. */
    static GateElement poll(InputGate gate) throws IOException {
        return copy(gate.pollNext());
    }

    private static GateElement copy(Optional<BufferOrEvent> next) {
        if (next.isEmpty()) {
            return null;
        }
        BufferOrEvent element = next.get();
        try {
            return new GateElement(element.channelIndex(), element.isEvent(), TestRecords.bytesOf(element.data()));
        } finally {
            element.recycle();
        }
    }

    /** The event payload as text. */
    String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
