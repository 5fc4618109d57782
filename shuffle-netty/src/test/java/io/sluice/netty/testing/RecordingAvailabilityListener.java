package io.sluice.netty.testing;

import io.sluice.testing.Await;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.netty.partition.BufferAvailabilityListener;

import java.util.concurrent.TimeUnit;

/**
 * A reader's availability listener that counts what it is told, so that tests can assert the exact number of
 * notifications and a reader thread can wait for the next one instead of polling.
 *
 * <p>Any thread; the counters are guarded by {@code this}.
 */
public final class RecordingAvailabilityListener implements BufferAvailabilityListener {

    private int dataNotifications; // guarded by this
    private int priorityNotifications; // guarded by this

    @Override
    public synchronized void notifyDataAvailable() {
        dataNotifications++;
        notifyAll();
    }

    /** Counted on its own: a test can tell a priority notification from a plain one. */
    @Override
    public synchronized void notifyPriorityEvent() {
        priorityNotifications++;
        notifyAll();
    }

    public synchronized int dataNotifications() {
        return dataNotifications;
    }

    public synchronized int priorityNotifications() {
        return priorityNotifications;
    }

    /** Notifications of both kinds so far. */
    public synchronized int total() {
        return dataNotifications + priorityNotifications;
    }

    /**
     * Waits until more than {@code seen} notifications arrived; read {@code seen} with {@link #total()} before
     * draining the view, so that a notification racing with the drain is not lost.
     */
    public synchronized void awaitMoreThan(int seen) throws InterruptedException {
        long deadline = System.nanoTime() + Await.EVENTUALLY.toNanos();
        while (dataNotifications + priorityNotifications <= seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("no notification after " + seen + " within " + Await.EVENTUALLY.toSeconds() + " s");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
