package io.sluice.api;

/**
 * The producer of a partition a consumer reads called {@link ResultPartitionWriter#fail(Throwable)}
 * or closed its writer without finishing it. The message carries the producer's cause (its
 * message, since the cause object itself may live in another process). Immutable; any thread.
 */
public class ProducerFailedException extends ShuffleException {

    private static final long serialVersionUID = 1L;

    /** @param message what failed, including the producer's cause message */
    public ProducerFailedException(String message) {
        super(message);
    }

    /**
     * @param message what failed, including the producer's cause message
     * @param cause the producer's cause, when it is available in this process
     */
    public ProducerFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
