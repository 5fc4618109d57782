package io.sluice.netty.testing;

import io.sluice.api.InputGate;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A test's work on a thread of its own (a producer that should block, a consumer that should wake), with a future
 * for its outcome, so that the test waits on the outcome rather than on time.
 *
 * <p>Started and awaited on the test thread.
 */
public final class BackgroundTask {

    /** What the thread runs. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    private final Thread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private BackgroundTask(String name, Body body) {
        this.thread = new Thread(() -> {
            try {
                body.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
    }

    /** Starts {@code body} on a new thread named {@code name}. */
    public static BackgroundTask start(String name, Body body) {
        BackgroundTask task = new BackgroundTask(name, body);
        task.thread.start();
        return task;
    }

    /**
     * Reads {@code gate} on a new thread, recycling what it gets, until a read throws; the future holds what was
     * thrown (a gate that finishes instead fails the future).
     */
    public static CompletableFuture<Throwable> readUntilFailure(InputGate gate) {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        start("reader-until-failure", () -> {
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

    public Thread thread() {
        return thread;
    }

    /** Done when the body returned or threw. */
    public CompletableFuture<Void> done() {
        return done;
    }

    /** Waits for the body to return, rethrowing what it threw; fails after {@link Await#LIMIT_SECONDS}. */
    public void awaitDone() throws Exception {
        done.get(Await.LIMIT_SECONDS, TimeUnit.SECONDS);
        thread.join();
    }
}
