package io.sluice.api;

import java.nio.ByteBuffer;

/** A heap buffer or event handed out by {@link ScriptedInputGate} that counts its recycles. */
final class TestBuffer implements BufferOrEvent {

    private final int channelIndex;
    private final boolean event;
    private final ByteBuffer data;
    private int recycles;

    private TestBuffer(int channelIndex, boolean event, byte[] bytes) {
        this.channelIndex = channelIndex;
        this.event = event;
        this.data = ByteBuffer.wrap(bytes);
    }

    static TestBuffer buffer(int channelIndex, byte[] bytes) {
        return new TestBuffer(channelIndex, false, bytes);
    }

    static TestBuffer event(int channelIndex, byte[] payload) {
        return new TestBuffer(channelIndex, true, payload);
    }

    /** @return the array behind {@link #data()}, to tell a no-copy view from a copy */
    byte[] array() {
        return data.array();
    }

    int recycleCount() {
        return recycles;
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
        return data;
    }

    @Override
    public void recycle() {
        recycles++;
        if (recycles > 1) {
            throw new AssertionError("recycled " + recycles + " times: " + this);
        }
    }

    @Override
    public String toString() {
        return (event ? "event" : "buffer") + "{channel=" + channelIndex + ", bytes=" + data.capacity() + "}";
    }
}
