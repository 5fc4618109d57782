package io.sluice.bench.run;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.bench.options.CorruptRecord;
import io.sluice.bench.options.Workload;
import io.sluice.tests.support.RecordGenerator;
import java.nio.ByteBuffer;

/**
 * One producer: emits generated records round-robin to every subpartition of its partition until
 * its share of the bytes is sent (or the duration is over), then broadcasts a {@link StreamTrailer}
 * with the count of each subpartition, finishes and closes the writer. Runs on its own thread;
 * {@link #abort()} from any thread.
 */
final class ProducerTask implements TaskGroup.Task {

    private final int index;
    private final ResultPartitionWriter writer;
    private final RecordGenerator[] generators; // by subpartition
    private final Workload workload;
    private final long byteBudget;
    private final TaskCounters counters = new TaskCounters();

    /**
     * @param index the producer's number; record channel of subpartition c is index x consumers + c
     * @param writer a writer that is set up; this task finishes and closes it
     * @param workload what to generate
     * @param producers how many producers share the workload's bytes
     */
    ProducerTask(int index, ResultPartitionWriter writer, Workload workload, int producers) {
        this.index = index;
        this.writer = writer;
        this.workload = workload;
        this.byteBudget = workload.timed() ? Long.MAX_VALUE : workload.bytesOf(producers, index);
        int consumers = writer.numberOfSubpartitions();
        this.generators = new RecordGenerator[consumers];
        for (int c = 0; c < consumers; c++) {
            int channel = index * consumers + c;
            generators[c] = new RecordGenerator(channel, workload.seed(), workload.sizes());
            CorruptRecord corrupt = workload.corrupt();
            if (corrupt != null && corrupt.channel() == channel) {
                generators[c].corruptRecord(corrupt.sequence());
            }
        }
    }

    @Override
    public String name() {
        return "producer-" + index;
    }

    /** @return what this producer has emitted so far; any thread */
    TaskCounters counters() {
        return counters;
    }

    @Override
    public void run() throws Exception {
        long deadline = workload.timed() ? System.nanoTime() + workload.duration().toNanos() : 0;
        boolean timed = workload.timed();
        int subpartitions = generators.length;
        int target = 0;
        long emitted = 0;
        while (emitted < byteBudget) {
            long now = System.nanoTime();
            if (timed && now - deadline >= 0) {
                break;
            }
            ByteBuffer record = generators[target].next(now);
            int size = record.remaining();
            writer.emitRecord(record, target);
            counters.add(size);
            emitted += size;
            if (++target == subpartitions) {
                target = 0;
            }
        }
        long[] counts = new long[subpartitions];
        for (int c = 0; c < subpartitions; c++) {
            counts[c] = generators[c].nextSequence();
        }
        writer.broadcastEvent(StreamTrailer.encode(counts), false);
        writer.finish();
        writer.close(); // after finish(): the data stays for the consumers
    }

    /** Closes the writer unfinished: its consumers fail, a blocked emit returns. */
    @Override
    public void abort() {
        writer.close();
    }
}
