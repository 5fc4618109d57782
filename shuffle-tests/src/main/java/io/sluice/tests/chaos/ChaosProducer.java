package io.sluice.tests.chaos;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.tests.support.RecordGenerator;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * One producer of a chaos job: emits its records, each to a subpartition the seed picks, broadcasts its events
 * where the scenario puts them, fires the faults keyed to its record count, then broadcasts a trailer, finishes and
 * closes its writer. Runs on its own thread.
 */
final class ChaosProducer {

    private final int index;
    private final ChaosScenario scenario;
    private final ResultPartitionWriter writer;
    private final FaultActions actions;
    private final RecordGenerator[] generators;
    private final long[] counts;
    private long emitted;

    /**
     * @param index    the producer's number; its records for consumer c carry channel index x consumers + c
     * @param scenario the job
     * @param writer   its writer, set up; this task closes it
     * @param actions  what its faults do
     */
    ChaosProducer(int index, ChaosScenario scenario, ResultPartitionWriter writer, FaultActions actions) {
        this.index = index;
        this.scenario = scenario;
        this.writer = writer;
        this.actions = actions;
        int consumers = scenario.consumers();
        this.generators = new RecordGenerator[consumers];
        this.counts = new long[consumers];
        for (int c = 0; c < consumers; c++) {
            generators[c] = new RecordGenerator(index * consumers + c, scenario.seed(), scenario.sizes());
        }
    }

    /** @return records emitted so far (read after the thread ended) */
    long emitted() {
        return emitted;
    }

    /**
     * @throws Exception what the writer threw; a producer that failed itself as scheduled returns normally
     */
    void run() throws Exception {
        try {
            SplittableRandom targets = new SplittableRandom(scenario.seed() * 31 + index);
            long[] events = scenario.events()[index];
            long total = scenario.records()[index];
            int eventsSent = 0;
            int prioritySent = 0;
            for (long n = 0; ; n++) {
                if (actions.producerReached(index, n, writer)) {
                    return; // failed itself
                }
                for (long event : events) {
                    boolean priority = event < 0;
                    if ((priority ? -1 - event : event) == n) {
                        int kind = priority ? ChaosEvent.PRIORITY : ChaosEvent.EVENT;
                        int eventIndex = priority ? prioritySent++ : eventsSent++;
                        writer.broadcastEvent(ChaosEvent.encode(kind, index, eventIndex, eventsSent, prioritySent,
                                counts), priority);
                    }
                }
                if (n == total) {
                    break;
                }
                int target = targets.nextInt(generators.length);
                ByteBuffer record = generators[target].next(System.nanoTime());
                writer.emitRecord(record, target);
                counts[target]++;
                emitted++;
            }
            writer.broadcastEvent(ChaosEvent.encode(ChaosEvent.TRAILER, index, 0, eventsSent, prioritySent, counts),
                    false);
            writer.finish();
        } finally {
            writer.close();
        }
    }
}
