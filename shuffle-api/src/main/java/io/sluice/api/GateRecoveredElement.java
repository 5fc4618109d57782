package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * A recovered element an engine queued on a {@link UnionInputGate}, renumbered into the channel space of the gate of
 * the union that hands it out; the union hands out the engine's {@link #original()} again, with the union's channel
 * index, so the engine gets its own element back. Ownership passes through unchanged: recycling this recycles the
 * original (the gate does so for an element it never handed out). Any thread, like the element it wraps.
 */
final class GateRecoveredElement implements BufferOrEvent {

    private final BufferOrEvent original;
    private final int channelIndex;

    /**
     * @param original      the engine's element, numbered in the union's channels
     * @param channelOffset the union's number of the gate's channel 0
     */
    GateRecoveredElement(BufferOrEvent original, int channelOffset) {
        this.original = original;
        this.channelIndex = original.channelIndex() - channelOffset;
    }

    /** The engine's element, with the union's channel index. */
    BufferOrEvent original() {
        return original;
    }

    @Override
    public int channelIndex() {
        return channelIndex;
    }

    @Override
    public boolean isEvent() {
        return original.isEvent();
    }

    @Override
    public boolean isPriority() {
        return original.isPriority();
    }

    @Override
    public ByteBuffer data() {
        return original.data();
    }

    @Override
    public void recycle() {
        original.recycle();
    }

    @Override
    public String toString() {
        return "BufferOrEvent{gate channel=" + channelIndex + ", " + original + "}";
    }
}
