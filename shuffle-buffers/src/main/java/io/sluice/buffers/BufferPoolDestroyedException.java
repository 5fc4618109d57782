package io.sluice.buffers;

/**
 * Thrown by a request on a destroyed {@link LocalBufferPool}, and to requesters that were blocked when it was
 * destroyed. Callers that tear down on cancellation can treat it as a cancellation signal.
 */
public class BufferPoolDestroyedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public BufferPoolDestroyedException(String message) {
        super(message);
    }
}
