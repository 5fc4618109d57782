package io.sluice.tests.chaos;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.tests.support.RecordGenerator;

import java.util.List;

/**
 * The producers of a large gate that live in one environment, driven by one thread (thousands of threads would
 * measure the scheduler, not the shuffle): it emits record k of each of its writers before record k + 1 of any, so
 * that every channel has data in flight at once, then each writer's trailer, finish and close. Each writer has one
 * subpartition; producer p's records carry channel p. Runs on its own thread.
 */
final class ManyWritersProducer {

    private final ChaosScenario scenario;
    private final int[] producers;
    private final List<ResultPartitionWriter> writers;
    private long emitted;

    /**
     * @param scenario  the job
     * @param producers the producers this thread drives
     * @param writers   every producer's writer, set up, by producer index; this task closes its own
     */
    ManyWritersProducer(ChaosScenario scenario, int[] producers, List<ResultPartitionWriter> writers) {
        this.scenario = scenario;
        this.producers = producers.clone();
        this.writers = writers;
    }

    /** @return records emitted so far by all its writers (read after the thread ended) */
    long emitted() {
        return emitted;
    }

    /** @throws Exception what a writer threw */
    void run() throws Exception {
        try {
            RecordGenerator[] generators = new RecordGenerator[producers.length];
            long most = 0;
            for (int i = 0; i < producers.length; i++) {
                generators[i] = new RecordGenerator(producers[i], scenario.seed(), scenario.sizes());
                most = Math.max(most, scenario.records()[producers[i]]);
            }
            for (long k = 0; k < most; k++) {
                for (int i = 0; i < producers.length; i++) {
                    if (k < scenario.records()[producers[i]]) {
                        writers.get(producers[i]).emitRecord(generators[i].next(System.nanoTime()), 0);
                        emitted++;
                    }
                }
            }
            for (int producer : producers) {
                ResultPartitionWriter writer = writers.get(producer);
                writer.broadcastEvent(ChaosEvent.encode(ChaosEvent.TRAILER, producer, 0, 0, 0,
                        new long[] {scenario.records()[producer]}), false);
                writer.finish();
            }
        } finally {
            for (int producer : producers) {
                writers.get(producer).close();
            }
        }
    }
}
