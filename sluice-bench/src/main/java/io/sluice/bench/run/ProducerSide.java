package io.sluice.bench.run;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.bench.options.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * The producer tasks of one process: writer p is filled by producer p. Created by the main
 * thread; {@link #bytes()} and {@link #records()} from any thread.
 */
final class ProducerSide {

    private final List<ProducerTask> tasks = new ArrayList<>();

    /**
     * @param writers writer p belongs to producer p; each is set up, and its task finishes and closes it
     * @param workload what to generate, shared by the producers
     */
    ProducerSide(List<ResultPartitionWriter> writers, Workload workload) {
        for (int p = 0; p < writers.size(); p++) {
            tasks.add(new ProducerTask(p, writers.get(p), workload, writers.size()));
        }
    }

    /** @return the tasks, to run */
    List<TaskGroup.Task> tasks() {
        return List.copyOf(tasks);
    }

    /** @return bytes emitted so far by every producer */
    long bytes() {
        long bytes = 0;
        for (ProducerTask task : tasks) {
            bytes += task.counters().bytes();
        }
        return bytes;
    }

    /** @return records emitted so far by every producer */
    long records() {
        long records = 0;
        for (ProducerTask task : tasks) {
            records += task.counters().records();
        }
        return records;
    }
}
