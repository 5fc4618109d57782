package io.sluice.flinkpeer;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.runtime.io.network.api.serialization.RecordDeserializer;
import org.apache.flink.runtime.io.network.api.serialization.RecordDeserializer.DeserializationResult;
import org.apache.flink.runtime.io.network.api.serialization.SpillingAdaptiveSpanningRecordDeserializer;
import org.apache.flink.runtime.io.network.api.writer.RecordWriter;
import org.apache.flink.runtime.io.network.api.writer.RecordWriterBuilder;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.types.LongValue;

/**
 * One-way latency with one record in flight: the producer emits a LongValue holding {@code System.nanoTime()}
 * through a RecordWriter with timeout 0 (flush after every record), the consumer takes the difference on arrival
 * (same JVM, same clock) and lets the producer send the next. Prints
 * {@code flink.latency.1rec one_way_us_p50=... p99=... p999=... msgs_per_s=... cpu_cores=...}.
 */
final class LatencyFigure {

    /** Samples kept: enough for 10 s at the 10-20 k round trips per second loopback allows. */
    private static final int MAX_SAMPLES = 4_000_000;

    private LatencyFigure() {
    }

    static void run(TaskManagerPair flink, Timing timing) throws Exception {
        ResultPartition partition = flink.partition(0, 1, 1);
        SingleInputGate gate = flink.openGates(List.of(partition), 1).get(0);
        Semaphore arrived = new Semaphore(0);
        long[] samples = new long[MAX_SAMPLES];
        // Written by the consumer only (lazySet publishes the samples before it); read once the window is over.
        AtomicInteger sampleCount = new AtomicInteger();
        // The window opens a warm-up after the first record arrived (setting the stack up can take longer than a
        // short warm-up on a loaded machine); until then it records nothing.
        AtomicLong windowStartRef = new AtomicLong(Long.MAX_VALUE);
        AtomicLong windowEndRef = new AtomicLong(Long.MIN_VALUE);
        AtomicInteger firstArrived = new AtomicInteger();
        Workers workers = new Workers();
        workers.start("consumer", () -> {
            RecordDeserializer<LongValue> deserializer =
                    new SpillingAdaptiveSpanningRecordDeserializer<>(new String[] {System.getProperty("java.io.tmpdir")});
            LongValue record = new LongValue();
            int count = 0;
            Optional<BufferOrEvent> next;
            while ((next = gate.getNext()).isPresent()) {
                if (!next.get().isBuffer()) {
                    continue;
                }
                deserializer.setNextBuffer(next.get().getBuffer());
                DeserializationResult result;
                do {
                    result = deserializer.getNextRecord(record);
                    if (result.isFullRecord()) {
                        long now = System.nanoTime();
                        long sentAt = record.getValue();
                        firstArrived.lazySet(1);
                        if (sentAt >= windowStartRef.get() && now <= windowEndRef.get() && count < MAX_SAMPLES) {
                            samples[count++] = now - sentAt;
                            sampleCount.lazySet(count);
                        }
                        arrived.release();
                    }
                } while (!result.isBufferConsumed());
            }
        });
        workers.start("producer", () -> {
            RecordWriter<LongValue> writer = new RecordWriterBuilder<LongValue>().setTimeout(0).build(partition);
            LongValue record = new LongValue();
            while (workers.running()) {
                record.setValue(System.nanoTime());
                writer.emit(record);
                while (!arrived.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (!workers.running()) {
                        break;
                    }
                }
            }
            writer.close();
            partition.finish();
        });
        long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (firstArrived.get() == 0 && System.nanoTime() < giveUp) {
            Thread.sleep(10);
        }
        long windowStart = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Window.millis(timing.warmupSeconds));
        long windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(Window.millis(timing.measureSeconds));
        windowEndRef.set(windowEnd);
        windowStartRef.set(windowStart);
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(windowStart - System.nanoTime())));
        long cpu0 = Window.cpuNanos();
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(windowEnd - System.nanoTime())));
        long cpu1 = Window.cpuNanos();
        Thread.sleep(200); // past the window: the consumer records nothing more
        workers.checkHealthy();
        long[] sorted = Arrays.copyOf(samples, sampleCount.get());
        Arrays.sort(sorted);
        FigureLine.named("flink.latency.1rec")
                .with("one_way_us_p50", percentile(sorted, 0.50) / 1e3, 1)
                .with("p99", percentile(sorted, 0.99) / 1e3, 1)
                .with("p999", percentile(sorted, 0.999) / 1e3, 1)
                .with("msgs_per_s", sorted.length / timing.measureSeconds, 0)
                .with("cpu_cores", (cpu1 - cpu0) / 1e9 / timing.measureSeconds, 2)
                .print();
        workers.stop();
    }

    /** The value below which a fraction {@code q} of the sorted samples lie (nearest rank); NaN without samples. */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }
}
