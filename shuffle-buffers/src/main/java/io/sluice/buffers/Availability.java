package io.sluice.buffers;

import java.util.concurrent.CompletableFuture;

/**
 * The shared, already completed future that pools hand out while they are available, so that staying available
 * allocates nothing. Callers of {@code getAvailableFuture()} only wait on or chain from the returned future; they
 * must never complete or obtrude it.
 */
final class Availability {

    static final CompletableFuture<Void> AVAILABLE = CompletableFuture.completedFuture(null);

    private Availability() {
    }
}
