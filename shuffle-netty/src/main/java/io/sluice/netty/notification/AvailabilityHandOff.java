package io.sluice.netty.notification;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The availability future an engine sees, detached from the internal one that transport threads complete: an
 * internal future still pending is handed out as a separate future that the environment's notification executor
 * completes, so the engine's continuations ({@code thenRun}, {@code thenAccept}, ...) never run on a Netty event
 * loop or on a thread that recycles buffers. A future already done is handed out as it is (a continuation added to
 * it runs on the caller's own thread), so the data path pays no thread hop while memory or data is there; the hop
 * is paid once per pending internal future, not per buffer.
 *
 * <p>One instance per writer or gate; any thread. {@code this} guards the one-entry cache of the last detached
 * future, so that repeated calls while waiting return the same future instead of allocating.
 */
public final class AvailabilityHandOff {

    private final Executor notifications;

    @GuardedBy("this")
    private CompletableFuture<?> lastInternal;
    @GuardedBy("this")
    private CompletableFuture<Void> lastDetached;

    /** @param notifications runs the completions; a rejected completion (executor shut down) runs on the caller */
    public AvailabilityHandOff(Executor notifications) {
        this.notifications = notifications;
    }

    /**
     * @param internal the internal availability future, completed by whichever thread makes the owner available
     * @return {@code internal} when it is done; otherwise a future completed from the notification executor once
     *         {@code internal} completes (normally, whatever the internal outcome: availability is a wake-up)
     */
    public CompletableFuture<?> detach(CompletableFuture<?> internal) {
        if (internal.isDone()) {
            return internal;
        }
        CompletableFuture<Void> detached;
        synchronized (this) {
            if (internal == lastInternal) {
                return lastDetached;
            }
            detached = new CompletableFuture<>();
            lastInternal = internal;
            lastDetached = detached;
        }
        internal.whenComplete((ignored, failure) -> completeOffThisThread(detached));
        return detached;
    }

    private void completeOffThisThread(CompletableFuture<Void> detached) {
        try {
            notifications.execute(() -> detached.complete(null));
        } catch (RejectedExecutionException e) {
            // The environment is closed and its notification thread gone: nothing is left to wait for.
            detached.complete(null);
        }
    }
}
