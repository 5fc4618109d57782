package io.sluice.bench.report;

/**
 * Where the report's backpressure series comes from: the time the run's writers spent blocked waiting for a
 * buffer, summed over every writer since the run started. The report charts its rate (milliseconds blocked per
 * second, per writer on average), as Flink's {@code backPressuredTimeMsPerSecond}.
 *
 * <p>A run passes one that reads the writers' metrics ({@code io.sluice.bench.run.WriterBackpressure});
 * {@link #NOT_MEASURED} is for a source without them. Read by the monitor thread; implementations must be cheap.
 */
public interface BackpressureSource {

    /** No writer metric to read: the report says "not measured" instead of drawing a flat line. */
    BackpressureSource NOT_MEASURED = new BackpressureSource() {
        @Override
        public long blockedNanos() {
            return -1;
        }

        @Override
        public int writers() {
            return 0;
        }
    };

    /** @return nanoseconds the writers spent blocked so far, summed; -1 when not measured */
    long blockedNanos();

    /** @return how many writers {@link #blockedNanos} sums over */
    int writers();
}
