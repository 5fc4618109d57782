package io.sluice.flink.testing;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes values through, slowly enough (a pause every {@code pauseEvery} values) for checkpoints to complete while
 * the job runs, and throws once in the whole job run: in the first subtask to see a value after a checkpoint
 * completed. The flags are static (per JVM) because Flink runs the function in the test's JVM; {@link #reset()}
 * before each job. It also counts the values that subtasks of a restarted attempt map, so a test can tell that the
 * job ran on after the failure. Task threads.
 */
public final class FailOnceAfterCheckpoint extends RichMapFunction<Long, Long> implements CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicInteger COMPLETED_CHECKPOINTS = new AtomicInteger();
    /** Values mapped by subtasks of a restarted attempt (attempt number above 0). */
    private static final AtomicLong VALUES_IN_LATER_ATTEMPTS = new AtomicLong();

    private final boolean fail;
    private final int pauseEvery;
    private transient long seen;
    /** {@link #seen} when this subtask first saw a completed checkpoint; 0 until then. */
    private transient long seenAtCheckpoint;
    /** Whether this subtask runs in a restarted attempt. */
    private transient boolean restarted;

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
        VALUES_IN_LATER_ATTEMPTS.set(0);
    }

    /** @return values mapped by restarted subtasks since {@link #reset()}: above 0 once the job ran on after one */
    public static long valuesInLaterAttempts() {
        return VALUES_IN_LATER_ATTEMPTS.get();
    }

    @Override
    public void open(OpenContext openContext) {
        restarted = getRuntimeContext().getTaskInfo().getAttemptNumber() > 0;
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
        if (restarted) {
            VALUES_IN_LATER_ATTEMPTS.incrementAndGet();
        }
        if (++seen % pauseEvery == 0) {
            Thread.sleep(1); // paces the job so that checkpoints complete while it runs; no assertion rests on it
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
