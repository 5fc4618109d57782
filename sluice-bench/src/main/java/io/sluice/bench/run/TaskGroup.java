package io.sluice.bench.run;

import io.sluice.bench.report.Units;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs the tasks of one run, each on its own thread, and waits for them. The first failure wins:
 * it is kept and every task is aborted; the failures that the abort causes in the other tasks
 * are consequences and are dropped. Started and awaited by one thread; tasks report from theirs.
 */
final class TaskGroup {

    /** One producer or consumer. */
    interface Task {

        /** @return the thread's name, e.g. {@code producer-2} */
        String name();

        /** Does the work on the task's own thread. */
        void run() throws Exception;

        /** Makes {@link #run} end soon, from any thread; idempotent. */
        void abort();
    }

    /** How long aborted tasks get to end before they are reported as stuck. */
    private static final Duration ABORT_GRACE = Duration.ofSeconds(10);

    private final List<Task> tasks;
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch ended;
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    private final AtomicBoolean aborted = new AtomicBoolean();

    /** @param tasks the tasks, run together by {@link #start} */
    TaskGroup(List<Task> tasks) {
        this.tasks = List.copyOf(tasks);
        this.ended = new CountDownLatch(tasks.size());
    }

    /** Starts one daemon thread per task (daemon: a task stuck in the library cannot keep the JVM alive). */
    void start() {
        for (Task task : tasks) {
            Thread thread = new Thread(() -> runOne(task), "sluice-bench-" + task.name());
            thread.setDaemon(true);
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.start();
        }
    }

    /**
     * Waits until every task ended, one failed, or the timeout passed.
     *
     * @param timeout the longest wait
     * @param describeState what to say about the run when it times out, e.g. the bytes moved
     * @return the first failure (a {@link TimeoutException} on timeout), or null when every task succeeded
     * @throws InterruptedException when interrupted while waiting
     */
    Throwable await(Duration timeout, Supplier<String> describeState) throws InterruptedException {
        if (!ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            fail(new TimeoutException("not finished within " + Units.seconds(timeout.toNanos()) + " (--timeout); "
                    + describeState.get()));
        }
        Throwable failure = firstFailure.get();
        if (failure != null && !ended.await(ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            failure.addSuppressed(new IllegalStateException("still running " + ABORT_GRACE.toSeconds()
                    + " s after the abort: " + stillRunning()));
        }
        return failure;
    }

    /**
     * Records a failure found outside the tasks (the first one wins) and aborts every task.
     *
     * @param cause what went wrong
     */
    void fail(Throwable cause) {
        firstFailure.compareAndSet(null, cause);
        if (aborted.compareAndSet(false, true)) {
            for (Task task : tasks) {
                try {
                    task.abort();
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
            }
        }
    }

    private void runOne(Task task) {
        try {
            task.run();
        } catch (Throwable t) { // every failure, Errors included, must end the run, not just this thread
            fail(t);
        } finally {
            ended.countDown();
        }
    }

    private String stillRunning() {
        List<String> names = new ArrayList<>();
        for (Thread thread : threads) {
            if (thread.isAlive()) {
                names.add(thread.getName());
            }
        }
        return String.join(", ", names);
    }
}
