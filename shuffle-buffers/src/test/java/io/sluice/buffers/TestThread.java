package io.sluice.buffers;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** Test helper: runs a task on its own daemon thread; the result (or failure) arrives in {@link #result()}. */
final class TestThread<T> {

    private final Thread thread;

    private final CompletableFuture<T> result = new CompletableFuture<>();

    private TestThread(String name, Callable<T> task) {
        this.thread = new Thread(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
    }

    static <T> TestThread<T> start(String name, Callable<T> task) {
        TestThread<T> started = new TestThread<>(name, task);
        started.thread.start();
        return started;
    }

    Thread thread() {
        return thread;
    }

    CompletableFuture<T> result() {
        return result;
    }

    /** True once the thread waits (parked) or has ended. */
    boolean isWaitingOrDone() {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                || state == Thread.State.TERMINATED;
    }
}
