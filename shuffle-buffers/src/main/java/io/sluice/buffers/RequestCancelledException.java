package io.sluice.buffers;

import java.io.IOException;

/**
 * A request for exclusive segments ended because its requester cancelled it (see
 * {@link NetworkBufferPool#requestUnpooledMemorySegments(int, java.util.concurrent.CompletableFuture)}); nothing
 * stays reserved.
 */
public class RequestCancelledException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param message what was requested and how much was collected when it was cancelled */
    public RequestCancelledException(String message) {
        super(message);
    }
}
