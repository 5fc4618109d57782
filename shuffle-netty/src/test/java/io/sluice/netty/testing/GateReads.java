package io.sluice.netty.testing;

import io.sluice.api.InputGate;
import io.sluice.testing.BackgroundTask;

import java.util.concurrent.CompletableFuture;

/**
 * Reads a gate on a thread of its own until a read fails, for tests of how a failure reaches the consumer.
 *
 * <p>Stateless; the reading happens on a {@link BackgroundTask}'s thread.
 */
public final class GateReads {

    private GateReads() {
    }

    /**
     * Reads {@code gate} on a new thread, recycling what it gets, until a read throws.
     *
     * @return completes with what the read threw; fails when the gate finishes without a failure
     */
    public static CompletableFuture<Throwable> untilFailure(InputGate gate) {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        BackgroundTask.start("reader-until-failure", () -> {
            try {
                while (!gate.isFinished()) {
                    gate.getNext().ifPresent(element -> element.recycle());
                }
                failure.completeExceptionally(new AssertionError("the gate finished without a failure"));
            } catch (Exception e) {
                failure.complete(e);
            }
        });
        return failure;
    }
}
