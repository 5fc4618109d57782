package io.sluice.bench.run;

import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.WriterMetrics;
import io.sluice.bench.report.BackpressureSource;
import java.util.List;

/**
 * The report's backpressure source: the writers' blocked time from the environments' metrics
 * ({@link WriterMetrics#backpressuredNanos()}), summed over every writer alive at the read. A writer that closed
 * drops out of the sum, so the report's rate between two samples can dip when one closes; the run's end is where
 * that happens. Read by the monitor thread; the metrics are cheap snapshots.
 */
final class WriterBackpressure implements BackpressureSource {

    private final List<ShuffleEnvironment> environments;
    private int writers; // monitor thread only: the writers of the latest read

    /** @param environments the run's environments */
    WriterBackpressure(List<ShuffleEnvironment> environments) {
        this.environments = environments;
    }

    @Override
    public long blockedNanos() {
        long blocked = 0;
        int count = 0;
        for (ShuffleEnvironment environment : environments) {
            for (WriterMetrics writer : environment.metrics().writers()) {
                blocked += writer.backpressuredNanos();
                count++;
            }
        }
        writers = count;
        return blocked;
    }

    @Override
    public int writers() {
        return writers;
    }
}
