package io.sluice.api;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/** A heap buffer or event handed out by {@link ScriptedInputGate} that counts its recycles. */
final class TestBuffer implements BufferOrEvent {

    private final int channelIndex;
    private final boolean event;
    private final ByteBuffer data;
    /** Overwrite the bytes on recycle, as a pool reusing the memory would, so a read after recycling shows. */
    private final boolean poisonOnRecycle;
    /** Atomic: a buffer may be recycled on the consumer's thread or on a thread closing the reader. */
    private final AtomicInteger recycles = new AtomicInteger();

    private TestBuffer(int channelIndex, boolean event, byte[] bytes, boolean poisonOnRecycle) {
        this.channelIndex = channelIndex;
        this.event = event;
        this.data = ByteBuffer.wrap(bytes);
        this.poisonOnRecycle = poisonOnRecycle;
    }

    static TestBuffer buffer(int channelIndex, byte[] bytes) {
        return new TestBuffer(channelIndex, false, bytes, false);
    }

    /** A buffer whose bytes all become {@link #POISON} when it is recycled. */
    static TestBuffer poisonedOnRecycle(int channelIndex, byte[] bytes) {
        return new TestBuffer(channelIndex, false, bytes, true);
    }

    /** What a {@link #poisonedOnRecycle} buffer's bytes become. */
    static final byte POISON = (byte) 0xEE;

    static TestBuffer event(int channelIndex, byte[] payload) {
        return new TestBuffer(channelIndex, true, payload, false);
    }

    /** @return the array behind {@link #data()}, to tell a no-copy view from a copy */
    byte[] array() {
        return data.array();
    }

    int recycleCount() {
        return recycles.get();
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
        int count = recycles.incrementAndGet();
        if (count > 1) {
            throw new AssertionError("recycled " + count + " times: " + this);
        }
        if (poisonOnRecycle) {
            Arrays.fill(data.array(), POISON);
        }
    }

    @Override
    public String toString() {
        return (event ? "event" : "buffer") + "{channel=" + channelIndex + ", bytes=" + data.capacity() + "}";
    }
}
