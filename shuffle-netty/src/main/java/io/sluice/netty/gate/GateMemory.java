package io.sluice.netty.gate;

import io.sluice.buffers.LocalBufferPool;

import java.io.IOException;

/**
 * The memory a gate reserves at setup beyond its channels' own: for remote channels, their exclusive buffers and
 * the gate's floating pool.
 *
 * <p>Called by the gate: {@link #reserve()} on the consumer thread during setup, {@link #release()} once, after
 * every channel was released, on whichever thread closes the gate.
 */
interface GateMemory {

    /** A gate of local channels reserves nothing. */
    GateMemory NONE = new GateMemory() {
        @Override
        public void reserve() {
        }

        @Override
        public void release() {
        }
    };

    /**
     * Reserves everything at once or nothing.
     *
     * @throws io.sluice.api.InsufficientBuffersException when the memory does not fit, saying required, free and
     *                                                    which option to raise
     */
    void reserve() throws IOException;

    /** Returns what {@link #reserve()} took; buffers still in use come back when they are recycled. Idempotent. */
    void release();

    /** The floating pool reserved for the gate's channels, or null (none, not reserved yet, or released). */
    default LocalBufferPool floatingPool() {
        return null;
    }
}
