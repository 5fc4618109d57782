package io.sluice.netty.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters a gate keeps for {@link io.sluice.api.GateMetrics}: what its consumer took, and how long it waited
 * for data.
 *
 * <p>Threads: {@link #onTaken} and the {@link #waiting()} timer's begin/end by the gate's one consumer thread; the
 * readers by any thread, without a lock. Cost: two opaque stores per buffer or event taken (plain stores on common
 * hardware, no fence).
 */
public final class GateCounters {

    private static final VarHandle BYTES_IN;
    private static final VarHandle BUFFERS_IN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BYTES_IN = lookup.findVarHandle(GateCounters.class, "bytesIn", long.class);
            BUFFERS_IN = lookup.findVarHandle(GateCounters.class, "buffersIn", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written by the consumer with opaque stores, read with opaque loads: never torn, eventually visible. */
    @SuppressWarnings("unused") // through BYTES_IN
    private long bytesIn;
    @SuppressWarnings("unused") // through BUFFERS_IN
    private long buffersIn;
    private final WaitTimer waiting = new WaitTimer();

    /** The consumer took a buffer ({@code dataBuffer}) or an event of {@code bytes} bytes. Consumer thread. */
    public void onTaken(int bytes, boolean dataBuffer) {
        BYTES_IN.setOpaque(this, (long) BYTES_IN.getOpaque(this) + bytes);
        if (dataBuffer) {
            BUFFERS_IN.setOpaque(this, (long) BUFFERS_IN.getOpaque(this) + 1);
        }
    }

    /** @return bytes of the buffers and events taken so far; any thread */
    public long bytesIn() {
        return (long) BYTES_IN.getOpaque(this);
    }

    /** @return data buffers taken so far; any thread */
    public long buffersIn() {
        return (long) BUFFERS_IN.getOpaque(this);
    }

    /** @return the consumer's waits for data */
    public WaitTimer waiting() {
        return waiting;
    }
}
