package io.sluice.api;

import java.io.IOException;

/**
 * Base of every checked failure the shuffle library reports to an engine. Subclasses name the
 * specific cause (a missing partition, a failed producer, a broken connection, too little memory).
 * Immutable; may be thrown and inspected on any thread.
 */
public class ShuffleException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param message what failed, with the ids and numbers behind it */
    public ShuffleException(String message) {
        super(message);
    }

    /**
     * @param message what failed, with the ids and numbers behind it
     * @param cause the underlying failure
     */
    public ShuffleException(String message, Throwable cause) {
        super(message, cause);
    }
}
