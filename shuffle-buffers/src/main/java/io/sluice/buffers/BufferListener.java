package io.sluice.buffers;

/**
 * Told when a buffer of a {@link LocalBufferPool} becomes available (see {@link LocalBufferPool#addBufferListener}).
 * Called on the thread that recycled the buffer (or that made pool capacity free), never with a pool lock held.
 */
public interface BufferListener {

    /**
     * Hands over a buffer. Ownership passes to the listener, which must recycle it eventually, also if this
     * method throws. Implementations should not throw: an exception drops the listener and surfaces on whichever
     * thread caused the notification (a recycler, or a caller that changed the pool sizes).
     *
     * @return true to stay registered for another buffer, false to be removed
     */
    boolean notifyBufferAvailable(Buffer buffer);

    /** The pool was destroyed while this listener waited; called exactly once, and no buffer follows. */
    void notifyBufferDestroyed();
}
