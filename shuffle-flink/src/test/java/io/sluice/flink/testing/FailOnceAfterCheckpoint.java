package io.sluice.flink.testing;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes values through, slowly enough (a pause every {@code pauseEvery} values) for checkpoints to complete while
 * the job runs, and throws once in the whole job run: in the first subtask to see a value after a checkpoint
 * completed. The flags are static (per JVM) because Flink runs the function in the test's JVM; {@link #reset()}
 * before each job. Task threads.
 */
public final class FailOnceAfterCheckpoint implements MapFunction<Long, Long>, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicInteger COMPLETED_CHECKPOINTS = new AtomicInteger();

    private final boolean fail;
    private final int pauseEvery;
    private transient long seen;
    /** {@link #seen} when this subtask first saw a completed checkpoint; 0 until then. */
    private transient long seenAtCheckpoint;

    private FailOnceAfterCheckpoint(boolean fail, int pauseEvery) {
        this.fail = fail;
        this.pauseEvery = pauseEvery;
    }

    /**
     * Records a subtask passes between the first completed checkpoint and the failure: at one millisecond's pause per
     * {@code pauseEvery} records, long enough (several of Flink's 100 ms buffer timeouts) that records after the
     * checkpoint reach the sink before the failure, so that the restore has something to replay.
     */
    static final long RECORDS_AFTER_CHECKPOINT = 4000;

    /** Throws once, {@link #RECORDS_AFTER_CHECKPOINT} records after the first completed checkpoint. */
    public static FailOnceAfterCheckpoint failing(int pauseEvery) {
        return new FailOnceAfterCheckpoint(true, pauseEvery);
    }

    /** Never throws; only paces the job and counts completed checkpoints. */
    public static FailOnceAfterCheckpoint pacing(int pauseEvery) {
        return new FailOnceAfterCheckpoint(false, pauseEvery);
    }

    /** Clears the flags before a job. */
    public static void reset() {
        FAILED.set(false);
        COMPLETED_CHECKPOINTS.set(0);
    }

    /** @return whether the injected failure happened */
    public static boolean failed() {
        return FAILED.get();
    }

    /** @return checkpoints completed (as seen by the subtasks) since {@link #reset()} */
    public static int completedCheckpoints() {
        return COMPLETED_CHECKPOINTS.get();
    }

    @Override
    public Long map(Long value) throws Exception {
        if (++seen % pauseEvery == 0) {
            Thread.sleep(1);
        }
        if (fail && COMPLETED_CHECKPOINTS.get() > 0) {
            if (seenAtCheckpoint == 0) {
                seenAtCheckpoint = seen;
            } else if (seen - seenAtCheckpoint >= RECORDS_AFTER_CHECKPOINT && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure at value " + value);
            }
        }
        return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        COMPLETED_CHECKPOINTS.incrementAndGet();
    }
}
