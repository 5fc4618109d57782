package io.sluice.bench.run;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.tests.support.Wiring;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One-way latency with one 8-byte record in flight, in the shape of the Flink peer's {@code flink.latency.1rec}
 * (bench/flink-peer, LatencyFigure): two environments in this JVM over loopback TCP, flush interval 0; a producer
 * thread emits a record holding {@code System.nanoTime()}, a consumer thread takes {@code now - sentAt} on arrival
 * (same JVM, same clock) and releases an in-JVM semaphore that lets the producer send the next. The window opens a
 * warm-up after the first record arrived and lasts the measured time; percentiles are nearest-rank over every sample
 * of the window. Built, run and closed by one caller thread, which starts the producer and consumer threads.
 */
public final class OneWayLatency {

    /** The figure's name, the same as the Flink peer's with "sluice" for "flink". */
    static final String FIGURE = "sluice.latency.1rec";
    /** The same figure with {@code shuffle.input.spin-wait} above zero. */
    static final String SPIN_FIGURE = "sluice.latency.spin.1rec";

    /** Samples kept: the Flink peer's bound. */
    private static final int MAX_SAMPLES = 4_000_000;
    private static final long FIRST_RECORD_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long PAST_WINDOW_MILLIS = 200;
    private static final long JOIN_MILLIS = 30_000;
    private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final String transport;
    private final Duration spinWait;
    private final double warmupSeconds;
    private final double measureSeconds;

    /**
     * @param transport the Netty transport of both environments: auto, nio or epoll
     * @param spinWait the consumer's {@code shuffle.input.spin-wait}; with one above zero the figure is named
     *                 {@value #SPIN_FIGURE}
     * @param warmupSeconds how long after the first record the window opens
     * @param measureSeconds how long the window lasts
     */
    public OneWayLatency(String transport, Duration spinWait, double warmupSeconds, double measureSeconds) {
        this.transport = transport;
        this.spinWait = spinWait;
        this.warmupSeconds = warmupSeconds;
        this.measureSeconds = measureSeconds;
    }

    /** The figure's name: {@value #FIGURE}, or {@value #SPIN_FIGURE} when the consumer spins. */
    String figure() {
        return spinWait.isZero() ? FIGURE : SPIN_FIGURE;
    }

    /**
     * Measures and returns the figure line,
     * {@code sluice.latency.1rec one_way_us_p50=... p99=... p999=... msgs_per_s=... cpu_cores=...}.
     *
     * @return the figure line
     * @throws Exception when the library fails, a thread fails or buffers are not returned
     */
    public String measure() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ZERO)
                .with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.INPUT_SPIN_WAIT, spinWait);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        try (Environments environments = Environments.start(factory, List.of(
                ShuffleEnvironmentContext.of(config, new ResourceId("latency-producer")),
                ShuffleEnvironmentContext.of(config, new ResourceId("latency-consumer"))));
             ShuffleMaster master = factory.createShuffleMaster(config)) {
            ShuffleEnvironment producerSide = environments.get(0);
            ShuffleDescriptor descriptor = Wiring.register(master, ResultPartitionId.random(), 1,
                    new ProducerDescriptor(producerSide.resourceId(), producerSide.dataAddress()));
            ResultPartitionWriter writer = Wiring.writer(producerSide, "latency-producer", descriptor, 1);
            InputGate gate = Wiring.gate(environments.get(1), "latency-consumer", 0, List.of(descriptor));
            writer.setup();
            gate.setup();
            String line;
            try (RecordReader reader = new RecordReader(gate)) {
                line = measure(writer, reader);
            } finally {
                writer.close();
            }
            int notReturned = environments.awaitBuffersReturned(RELEASE_GRACE);
            if (notReturned > 0) {
                throw new IllegalStateException(notReturned + " buffers not returned after the latency figure: "
                        + environments.describeSegmentsInUse());
            }
            return line;
        }
    }

    private String measure(ResultPartitionWriter writer, RecordReader reader) throws Exception {
        Semaphore arrived = new Semaphore(0);
        long[] samples = new long[MAX_SAMPLES];
        // Written by the consumer only (lazySet publishes the samples before it); read once the window is over.
        AtomicInteger sampleCount = new AtomicInteger();
        AtomicLong windowStartRef = new AtomicLong(Long.MAX_VALUE);
        AtomicLong windowEndRef = new AtomicLong(Long.MIN_VALUE);
        AtomicInteger firstArrived = new AtomicInteger();
        AtomicInteger running = new AtomicInteger(1);
        Throwable[] failures = new Throwable[2];
        Thread consumer = new Thread(() -> {
            try {
                int count = 0;
                RecordOrEvent next;
                while ((next = reader.next()) != null) {
                    if (next.isEvent()) {
                        continue;
                    }
                    long now = System.nanoTime();
                    long sentAt = next.data().getLong(next.data().position());
                    firstArrived.lazySet(1);
                    if (sentAt >= windowStartRef.get() && now <= windowEndRef.get() && count < MAX_SAMPLES) {
                        samples[count++] = now - sentAt;
                        sampleCount.lazySet(count);
                    }
                    arrived.release();
                }
            } catch (Throwable t) { // the producer must stop too, or it would wait for an arrival forever
                failures[1] = t;
                running.set(0);
            }
        }, "latency-consumer");
        Thread producer = new Thread(() -> {
            try {
                ByteBuffer record = ByteBuffer.allocate(Long.BYTES);
                while (running.get() == 1) {
                    record.putLong(0, System.nanoTime());
                    writer.emitRecord(record, 0);
                    while (!arrived.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (running.get() == 0) {
                            break;
                        }
                    }
                }
                writer.finish();
            } catch (Throwable t) {
                failures[0] = t;
                running.set(0);
            }
        }, "latency-producer");
        consumer.start();
        producer.start();
        try {
            long giveUp = System.nanoTime() + FIRST_RECORD_TIMEOUT_NANOS;
            while (firstArrived.get() == 0 && System.nanoTime() < giveUp && running.get() == 1) {
                Thread.sleep(10);
            }
            long windowStart = System.nanoTime() + nanos(warmupSeconds);
            long windowEnd = windowStart + nanos(measureSeconds);
            windowEndRef.set(windowEnd);
            windowStartRef.set(windowStart);
            sleepUntil(windowStart);
            long cpu0 = OS.getProcessCpuTime();
            sleepUntil(windowEnd);
            long cpu1 = OS.getProcessCpuTime();
            Thread.sleep(PAST_WINDOW_MILLIS); // past the window: the consumer records nothing more
            long[] sorted = Arrays.copyOf(samples, sampleCount.get());
            Arrays.sort(sorted);
            return String.format(Locale.ROOT,
                    "%s one_way_us_p50=%.1f p99=%.1f p999=%.1f msgs_per_s=%.0f cpu_cores=%.2f", figure(), percentile(sorted, 0.50) / 1e3, percentile(sorted, 0.99) / 1e3,
                    percentile(sorted, 0.999) / 1e3, sorted.length / measureSeconds,
                    (cpu1 - cpu0) / 1e9 / measureSeconds);
        } finally {
            running.set(0);
            producer.join(JOIN_MILLIS);
            if (failures[0] != null) {
                reader.close(); // the partition never ends: wake the consumer out of its wait
            }
            consumer.join(JOIN_MILLIS);
            if (producer.isAlive() || consumer.isAlive()) {
                throw new IllegalStateException("the latency " + (producer.isAlive() ? "producer" : "consumer")
                        + " did not stop within " + JOIN_MILLIS + " ms");
            }
            if (failures[0] != null || failures[1] != null) {
                Throwable first = failures[0] != null ? failures[0] : failures[1];
                throw new IllegalStateException("the latency " + (failures[0] != null ? "producer" : "consumer")
                        + " failed: " + first, first);
            }
        }
    }

    /**
     * The value below which a fraction {@code q} of the sorted samples lie, by nearest rank (as the Flink peer
     * computes it); NaN without samples.
     *
     * @param sorted samples in ascending order
     * @param q the fraction, 0 to 1
     * @return the sample at rank ceil(q * n)
     */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    private static void sleepUntil(long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
