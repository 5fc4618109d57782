package io.sluice.netty.partition;

import io.sluice.api.BufferOrEvent;
import io.sluice.buffers.Buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A data buffer a priority event overtook in a subpartition, as a writer hands it to an
 * {@link io.sluice.api.InFlightDataSink}: the unsent bytes of one queued buffer, which still go on to the consumer.
 *
 * <p>Ownership: holds one reference of its own to the queued buffer's segment (a read-only slice sharing the
 * segment's reference count with the queued buffer and the reader's slices), which {@link #recycle()} releases,
 * exactly once. A second call throws {@link IllegalStateException} naming the partition and subpartition and does
 * not touch the segment: releasing a shared count twice would hand the segment back while the consumer still reads
 * it. {@link #data()} while held, from the sink's thread; {@link #recycle()} from any thread.
 */
final class OvertakenBuffer implements BufferOrEvent {

    private static final VarHandle RECYCLED;

    static {
        try {
            RECYCLED = MethodHandles.lookup().findVarHandle(OvertakenBuffer.class, "recycled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String subpartition;
    private final int index;
    private final Buffer buffer;
    /** Set once by the first {@link #recycle()}; written only through {@link #RECYCLED}. */
    @SuppressWarnings("unused")
    private volatile boolean recycled;

    /**
     * @param subpartition names the subpartition, for errors
     * @param index        the subpartition's index
     * @param buffer       a data buffer whose one reference this object takes over
     */
    OvertakenBuffer(String subpartition, int index, Buffer buffer) {
        this.subpartition = subpartition;
        this.index = index;
        this.buffer = buffer;
    }

    @Override
    public int channelIndex() {
        return index;
    }

    @Override
    public boolean isEvent() {
        return false;
    }

    /** A fresh read-only view of the overtaken bytes. */
    @Override
    public ByteBuffer data() {
        return buffer.getNioBufferReadable();
    }

    @Override
    public void recycle() {
        if (!RECYCLED.compareAndSet(this, false, true)) {
            throw new IllegalStateException("overtaken buffer of " + subpartition
                    + " was recycled twice: each buffer an InFlightDataSink gets is recycled exactly once");
        }
        buffer.recycleBuffer();
    }

    /**
     * Recycles the buffer unless someone did already: for the writer, after the sink threw while holding it (the
     * sink may or may not have recycled it; a later recycle by the sink then throws instead of releasing twice).
     */
    void recycleIfHeld() {
        if (RECYCLED.compareAndSet(this, false, true)) {
            buffer.recycleBuffer();
        }
    }

    @Override
    public String toString() {
        return "overtaken buffer of " + buffer.readableBytes() + " bytes of " + subpartition;
    }
}
