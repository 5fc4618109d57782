package io.sluice.netty.gate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A retry scheduler that runs nothing by itself: it records the delay of every one-shot task and runs the tasks
 * when the test says so, on the test's thread. Tasks a channel cancels are skipped. Periodic scheduling is left to
 * the real executor (no test here uses it).
 *
 * <p>Test thread only, apart from {@link #schedule}, which the channel under test calls.
 */
final class ManualRetryScheduler extends ScheduledThreadPoolExecutor {

    /** One held task: what to run, and the never-firing future the channel holds for it. */
    private record Held(Runnable command, ScheduledFuture<?> future) {
    }

    /** Longer than any test; the held future never fires by itself. */
    private static final long NEVER_DAYS = 1;

    private final List<Long> delaysMillis = new ArrayList<>(); // guarded by this
    private final ArrayDeque<Held> held = new ArrayDeque<>(); // guarded by this

    ManualRetryScheduler() {
        super(1);
        setRemoveOnCancelPolicy(true);
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        ScheduledFuture<?> future = super.schedule(() -> { }, NEVER_DAYS, TimeUnit.DAYS);
        delaysMillis.add(unit.toMillis(delay));
        held.add(new Held(command, future));
        return future;
    }

    /** The delays asked for so far, in milliseconds, in order. */
    synchronized List<Long> delaysMillis() {
        return new ArrayList<>(delaysMillis);
    }

    /** Tasks waiting to run. */
    synchronized int pending() {
        return held.size();
    }

    /** Runs the oldest held task unless it was cancelled; returns false when none was held. */
    boolean runNext() {
        Held next;
        synchronized (this) {
            next = held.poll();
        }
        if (next == null) {
            return false;
        }
        boolean cancelled = next.future().isCancelled();
        next.future().cancel(false);
        if (!cancelled) {
            next.command().run();
        }
        return true;
    }

    /** Runs held tasks, including those they schedule, until none is left; returns how many ran. */
    int runAll() {
        int ran = 0;
        while (runNext()) {
            ran++;
        }
        return ran;
    }
}
