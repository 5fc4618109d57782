package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.bench.report.LatencySummary;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The consumer tasks of one process: gate c is read by consumer c, which checks the records of
 * every producer. Created by the main thread; {@link #bytes()} and {@link #records()} from any
 * thread, {@link #latency()} once the tasks ended.
 */
final class ConsumerSide {

    private final List<ConsumerTask> tasks = new ArrayList<>();

    /**
     * @param gates gate c reads subpartition c of every partition; each is set up, and its task owns it
     * @param producers the partitions each gate reads, one input channel each
     */
    ConsumerSide(List<InputGate> gates, int producers) {
        for (int c = 0; c < gates.size(); c++) {
            tasks.add(new ConsumerTask(c, gates.get(c), new DeliveryCheck(c, producers, gates.size())));
        }
    }

    /** @return the tasks, to run */
    List<TaskGroup.Task> tasks() {
        return List.copyOf(tasks);
    }

    /** @return bytes verified so far by every consumer */
    long bytes() {
        long bytes = 0;
        for (ConsumerTask task : tasks) {
            bytes += task.check().counters().bytes();
        }
        return bytes;
    }

    /** @return records verified so far by every consumer */
    long records() {
        long records = 0;
        for (ConsumerTask task : tasks) {
            records += task.check().counters().records();
        }
        return records;
    }

    /** @return the latencies of every consumer together */
    LatencySummary latency() {
        Histogram all = LatencySummary.newHistogram();
        for (ConsumerTask task : tasks) {
            all.add(task.check().latency());
        }
        return LatencySummary.of(all);
    }
}
