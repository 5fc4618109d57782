package io.sluice.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A test's work on a thread of its own (a producer that should block, a consumer that should wake): the test waits
 * for its result or failure, or for it to block at a known place, instead of waiting for time to pass. The thread is
 * a daemon, so a task that hangs cannot keep the test JVM alive; a fixture that owns tasks {@link #stop}s them when
 * the test ends. The body runs on the task's thread; the other methods are called from the test's thread.
 *
 * @param <T> what the body returns
 */
public final class BackgroundTask<T> {

    private final String name;
    private final Thread thread;
    private final CompletableFuture<T> result = new CompletableFuture<>();

    private BackgroundTask(String name, long stackBytes, Callable<T> body) {
        this.name = name;
        // 0 asks for the JVM's default stack size.
        this.thread = new Thread(null, () -> run(body), name, stackBytes);
        this.thread.setDaemon(true);
    }

    /** A body that returns nothing. */
    @FunctionalInterface
    public interface Body {
        /** Runs on the task's thread; what it throws is kept for {@link #await}. */
        void run() throws Exception;
    }

    /**
     * @param name the thread's name, also used in failure messages
     * @param body what the thread does; its result or exception is kept for {@link #await}
     * @return the started task
     */
    public static <T> BackgroundTask<T> start(String name, Callable<T> body) {
        BackgroundTask<T> task = new BackgroundTask<>(name, 0, body);
        task.thread.start();
        return task;
    }

    /**
     * A task on a thread with a small stack, for a test that must fail for certain when the code under test
     * recurses once per element of a long chain (a StackOverflowError is then kept like any other failure).
     *
     * @param name       the thread's name, also used in failure messages
     * @param stackBytes the thread's stack size; a hint the JVM may round up
     * @param body       what the thread does; its exception is kept for {@link #await}
     * @return the started task, whose result is {@code null}
     */
    public static BackgroundTask<Void> startWithStack(String name, long stackBytes, Body body) {
        BackgroundTask<Void> task = new BackgroundTask<>(name, stackBytes, () -> {
            body.run();
            return null;
        });
        task.thread.start();
        return task;
    }

    /**
     * @param name the thread's name, also used in failure messages
     * @param body what the thread does; its exception is kept for {@link #await}
     * @return the started task, whose result is {@code null}
     */
    public static BackgroundTask<Void> start(String name, Body body) {
        return start(name, () -> {
            body.run();
            return null;
        });
    }

    private void run(Callable<T> body) {
        try {
            result.complete(body.call());
        } catch (Throwable t) {
            // Kept, not swallowed: await() and awaitFailure() hand it to the test.
            result.completeExceptionally(t);
        }
    }

    /** @return the thread's name */
    public String name() {
        return name;
    }

    /** @return the task's thread, for example to interrupt it */
    public Thread thread() {
        return thread;
    }

    /** @return completes with what the body returned, or exceptionally with what it threw */
    public CompletableFuture<T> result() {
        return result;
    }

    /**
     * {@link #await(Duration)} for {@link Await#EVENTUALLY}.
     *
     * @return what the body returned
     * @throws Exception what the body threw, unchanged
     */
    public T await() throws Exception {
        return await(Await.EVENTUALLY);
    }

    /**
     * @param timeout how long the body may still take; a hang guard, not a measurement
     * @return what the body returned
     * @throws Exception what the body threw, unchanged
     * @throws AssertionError when the body has not ended within {@code timeout}, with the thread's stack
     */
    public T await(Duration timeout) throws Exception {
        try {
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw bodyFailure(e);
        } catch (TimeoutException e) {
            throw new AssertionError(name + " did not end within " + timeout.toMillis() + " ms; it is at:"
                    + stackTrace(), e);
        }
    }

    /**
     * Waits until every task has ended, or one has failed: the first failure is thrown at once, so a consumer's
     * verification error is not hidden behind its producer hanging on backpressure.
     *
     * @param timeout a hang guard for all of them together
     * @param tasks the tasks to wait for; afterwards {@link #await} returns their results at once
     * @throws Exception the first failure of a task, unchanged
     * @throws AssertionError when they have not all ended within {@code timeout}, with the stacks of the others
     */
    public static void awaitAll(Duration timeout, BackgroundTask<?>... tasks) throws Exception {
        CompletableFuture<Void> allOrFirstFailure = new CompletableFuture<>();
        CompletableFuture<?>[] results = new CompletableFuture<?>[tasks.length];
        for (int i = 0; i < tasks.length; i++) {
            results[i] = tasks[i].result;
            results[i].whenComplete((value, failure) -> {
                if (failure != null) {
                    allOrFirstFailure.completeExceptionally(failure);
                }
            });
        }
        CompletableFuture.allOf(results).whenComplete((ignored, failure) -> allOrFirstFailure.complete(null));
        try {
            allOrFirstFailure.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw bodyFailure(e);
        } catch (TimeoutException e) {
            StringBuilder running = new StringBuilder();
            for (BackgroundTask<?> task : tasks) {
                if (!task.isDone()) {
                    running.append("\n").append(task.name).append(" is at:").append(task.stackTrace());
                }
            }
            throw new AssertionError("Tasks did not end within " + timeout.toMillis() + " ms:" + running, e);
        }
    }

    /**
     * {@link #awaitFailure(Duration)} for {@link Await#EVENTUALLY}.
     *
     * @return what the body threw
     */
    public Throwable awaitFailure() throws InterruptedException {
        return awaitFailure(Await.EVENTUALLY);
    }

    /**
     * @param timeout how long the body may still take
     * @return what the body threw
     * @throws AssertionError when the body returned normally, or has not ended within {@code timeout}
     */
    public Throwable awaitFailure(Duration timeout) throws InterruptedException {
        try {
            T value = result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            throw new AssertionError(name + " was expected to fail but returned " + value);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError(name + " did not fail within " + timeout.toMillis() + " ms; it is at:"
                    + stackTrace(), e);
        }
    }

    /**
     * Waits until the thread is parked (waiting, with or without a timeout) inside a method of this name: it is
     * blocked there, not merely passing through.
     *
     * @param methodName a method on the thread's stack, e.g. {@code "emitRecord"}
     * @param timeout a hang guard
     * @throws AssertionError when that does not happen within {@code timeout}, or the body ended first
     */
    public void awaitParkedIn(String methodName, Duration timeout) {
        Await.until(() -> {
            if (result.isDone()) {
                throw new AssertionError(name + " ended instead of blocking in " + methodName + ": " + result);
            }
            return isParkedIn(methodName);
        }, timeout, () -> name + " parked in " + methodName + "; it is at:" + stackTrace());
    }

    /** @return whether the task is parked inside a method of this name now */
    public boolean isParkedIn(String methodName) {
        Thread.State state = thread.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getMethodName().equals(methodName)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether the body has ended, normally or not */
    public boolean isDone() {
        return result.isDone();
    }

    /**
     * @return whether the thread is parked (waiting, with or without a timeout) or has ended; a thread only passing
     *     a contended monitor does not count
     */
    public boolean isWaitingOrDone() {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                || state == Thread.State.TERMINATED;
    }

    /**
     * Waits for the thread to end; interrupts it if it does not within {@code timeout}.
     *
     * @return null when it ended, else a failure that names the task and shows where it was stuck
     */
    public AssertionError stop(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (!thread.isAlive()) {
            return null;
        }
        AssertionError stuck = new AssertionError(name + " was still running " + timeout.toMillis()
                + " ms after it was asked to stop (its writers and gates closed); it was at:" + stackTrace());
        thread.interrupt();
        return stuck;
    }

    /** @return what a body threw, to rethrow unchanged; an Error is thrown from here */
    private static Exception bodyFailure(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception exception) {
            return exception;
        }
        throw (Error) cause;
    }

    private String stackTrace() {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement frame : thread.getStackTrace()) {
            text.append("\n\tat ").append(frame);
        }
        return text.toString();
    }
}
