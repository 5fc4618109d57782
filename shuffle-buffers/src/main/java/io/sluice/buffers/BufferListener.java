package io.sluice.buffers;

/**
 * Told when a buffer of a {@link LocalBufferPool} becomes available (see {@link LocalBufferPool#addBufferListener}).
 * Called on the thread that recycled the buffer (or that made pool capacity free), never with a pool lock held.
 */
public interface BufferListener {

    /** What a listener did with the buffer it was offered. */
    enum Reply {
        /** Not wanted after all: the buffer is still the pool's, which offers it to the next waiting listener. */
        DECLINED,
        /** Taken; the listener is removed. */
        TAKEN,
        /** Taken, and the listener stays registered (behind the others) for another buffer. */
        TAKEN_WANTS_MORE
    }

    /**
     * Offers a buffer. A listener that takes it owns it and must recycle it eventually, also if this method throws.
     * A listener that declines it must not touch it again, and above all must not recycle it: the pool hands it to
     * the next waiting listener itself, in a loop, so a chain of listeners that decline costs no stack however long
     * it is (recycling it here would nest one hand-off per waiting listener). A declining listener is removed.
     * Implementations should not throw: an exception drops the listener and surfaces on whichever thread caused the
     * notification (a recycler, or a caller that changed the pool sizes).
     *
     * @return whether the listener took the buffer, and whether it wants another
     */
    Reply notifyBufferAvailable(Buffer buffer);

    /** The pool was destroyed while this listener waited; called exactly once, and no buffer follows. */
    void notifyBufferDestroyed();
}
