package io.sluice.flinkpeer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The producer and consumer threads of one figure, and the flag that stops the producers. A worker that fails
 * while the figure is still running prints its stack trace and marks the figure failed, so no number is printed
 * for a broken run. Started and stopped by the figure's main thread.
 */
final class Workers {

    /** A worker's body. */
    interface Body {
        void run() throws Exception;
    }

    private static final long JOIN_MILLIS = TimeUnit.SECONDS.toMillis(5);

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private volatile Throwable failure;

    /** Whether producers should keep producing. */
    boolean running() {
        return running;
    }

    /** Starts a daemon thread running {@code body}. */
    void start(String name, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                if (running) {
                    failure = t;
                    t.printStackTrace();
                }
            }
        }, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    /** @throws IllegalStateException when a worker failed during the figure */
    void checkHealthy() {
        Throwable cause = failure;
        if (cause != null) {
            throw new IllegalStateException("a worker failed, the figure is void: " + cause, cause);
        }
    }

    /** Stops producing and waits a little for every thread to end (they are daemons: stragglers do not matter). */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(JOIN_MILLIS);
        }
    }
}
