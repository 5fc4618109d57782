package io.sluice.api;

/**
 * A writer's or gate's {@code setup()} could not reserve the buffers it needs. The message says
 * how many were required (and how that number is made up), how many were available, and which
 * option to raise, e.g. "required 212 buffers = 100 channels x 2 + 12; free 150; raise
 * shuffle.memory.total". A failed setup leaves nothing reserved. Immutable; any thread.
 */
public class InsufficientBuffersException extends ShuffleException {

    private static final long serialVersionUID = 1L;

    /** @param message required, available, and the option to raise */
    public InsufficientBuffersException(String message) {
        super(message);
    }

    /**
     * @param message required, available, and the option to raise
     * @param cause the buffer pool's own failure
     */
    public InsufficientBuffersException(String message, Throwable cause) {
        super(message, cause);
    }
}
