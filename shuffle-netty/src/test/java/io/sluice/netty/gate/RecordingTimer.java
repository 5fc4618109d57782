package io.sluice.netty.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A one-thread scheduler that remembers the delay of every task scheduled with
 * {@link #schedule(Runnable, long, TimeUnit)} (how channels schedule partition request retries; {@code execute} and
 * {@code submit} go through it too, with delay 0) and runs the tasks as usual. Daemon thread; {@link #shutdownNow()}
 * it after the test.
 *
 * <p>Any thread; the delays are guarded by {@code this}.
 */
public final class RecordingTimer extends ScheduledThreadPoolExecutor {

    private final List<Long> delaysMillis = new ArrayList<>(); // guarded by this

    public RecordingTimer() {
        super(1, runnable -> {
            Thread thread = new Thread(runnable, "test-retry-timer");
            thread.setDaemon(true);
            return thread;
        });
        setRemoveOnCancelPolicy(true);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        synchronized (this) {
            delaysMillis.add(unit.toMillis(delay));
        }
        return super.schedule(command, delay, unit);
    }

    /** The delays scheduled so far, in milliseconds, in order. */
    public synchronized List<Long> delaysMillis() {
        return new ArrayList<>(delaysMillis);
    }
}
