package io.sluice.netty.gate;

import io.sluice.api.BufferOrEvent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A recovered buffer or event as an engine would queue it with {@code InputGate.addRecovered}: heap bytes and a
 * count of its recycles (any thread: a gate closed by another thread recycles what it never handed out).
 */
final class RecoveredElement implements BufferOrEvent {

    private final int channelIndex;
    private final boolean event;
    private final byte[] bytes;
    private final AtomicInteger recycles = new AtomicInteger();

    private RecoveredElement(int channelIndex, boolean event, String text) {
        this.channelIndex = channelIndex;
        this.event = event;
        this.bytes = text.getBytes(StandardCharsets.UTF_8);
    }

    static RecoveredElement buffer(int channelIndex, String text) {
        return new RecoveredElement(channelIndex, false, text);
    }

    static RecoveredElement event(int channelIndex, String text) {
        return new RecoveredElement(channelIndex, true, text);
    }

    /** How often it was recycled. */
    int recycles() {
        return recycles.get();
    }

    /** Its bytes' length. */
    int length() {
        return bytes.length;
    }

    @Override
    public int channelIndex() {
        return channelIndex;
    }

    @Override
    public boolean isEvent() {
        return event;
    }

    @Override
    public ByteBuffer data() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    @Override
    public void recycle() {
        recycles.incrementAndGet();
    }

    @Override
    public String toString() {
        return (event ? "recovered event " : "recovered buffer ") + new String(bytes, StandardCharsets.UTF_8)
                + " of channel " + channelIndex;
    }
}
