package io.sluice.tests.chaos;

import java.util.concurrent.Callable;

/**
 * One producer or consumer of a chaos run on its own daemon thread, remembering how it ended. Started and joined by
 * the run's thread; its outcome is read after it ended (or, for a stuck one, its stack).
 */
final class TaskThread {

    private final String name;
    private final Thread thread;
    private volatile Throwable error;
    private volatile boolean ended;

    /**
     * @param name what the task is, e.g. {@code producer 1}
     * @param seed the run's seed, for the thread's name
     * @param body what it runs; what it throws is its outcome
     */
    TaskThread(String name, long seed, Callable<?> body) {
        this.name = name;
        this.thread = new Thread(() -> {
            try {
                body.call();
            } catch (Throwable t) {
                error = t;
            } finally {
                ended = true;
            }
        }, "chaos-" + seed + "-" + name.replace(' ', '-'));
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** @return true when it ended before the deadline ({@link System#nanoTime()}) */
    boolean awaitUntil(long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            thread.join(Math.max(1, left / 1_000_000));
        }
        return ended;
    }

    String name() {
        return name;
    }

    boolean ended() {
        return ended;
    }

    Throwable error() {
        return error;
    }

    /** @return the thread's stack now, one frame a line */
    String stack() {
        StringBuilder text = new StringBuilder(thread.getName()).append(" (").append(thread.getState()).append(")\n");
        for (StackTraceElement frame : thread.getStackTrace()) {
            text.append("    at ").append(frame).append('\n');
        }
        return text.toString();
    }

    void interrupt() {
        thread.interrupt();
    }
}
