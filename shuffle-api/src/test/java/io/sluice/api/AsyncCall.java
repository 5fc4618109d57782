package io.sluice.api;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Runs a blocking gate or reader call on another thread, so a test can wake it up. */
final class AsyncCall {

    /** A call that may block and fail like the gate API. */
    @FunctionalInterface
    interface BlockingCall<T> {
        T call() throws IOException, InterruptedException;
    }

    private AsyncCall() {
    }

    /** @return completes with the call's result, or exceptionally with its failure */
    static <T> CompletableFuture<T> start(BlockingCall<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (IOException | InterruptedException e) {
                throw new CompletionException(e);
            }
        });
    }
}
