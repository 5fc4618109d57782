package io.sluice.bench.jmh;

import io.sluice.api.RecordFraming;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Steady-state allocation of the data path, to be run with JMH's GC profiler:
 * <pre>
 * java -jar sluice-bench/target/sluice-bench.jar jmh -prof gc -p link=tcp SteadyStateAllocationBenchmark
 * </pre>
 * and read {@code ·gc.alloc.rate.norm} (bytes per operation). The profiler counts what every thread of the forked
 * JVM allocated (producer, consumer, the Netty event loops, the flush timer), so the figure is the library's
 * allocation per unit once warmed up: {@link #buffers()} per 32 KiB buffer sent and received (one channel),
 * {@link #records()} per 8-byte record (one channel, flush every 100 ms; about 2,730 records fill a buffer). The
 * producer reuses one record buffer and the consumer only counts, so the benchmark itself allocates nothing per
 * operation (the waiting benchmark thread parks). Zero is the target: an allocation per buffer or record becomes
 * garbage-collection work on the data path; what remains is named in docs/benchmarks.md.
 */
public class SteadyStateAllocationBenchmark extends StreamingBenchmark {

    /** Buffers per invocation of {@link #buffers()}: 64 MiB. */
    static final int BUFFERS = 2048;
    /** Records per invocation of {@link #records()}. */
    static final int RECORDS = 1_000_000;

    /**
     * Starts the stream the benchmark method needs.
     *
     * @param params tells which method this trial runs
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        ShuffleConfig config = ShuffleConfig.empty();
        boolean bulk = params.getBenchmark().endsWith(".buffers");
        int recordBytes = bulk
                ? (int) (long) config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE) - RecordFraming.LENGTH_BYTES
                : Long.BYTES;
        fixture = new StreamingFixture(Link.named(link), config, 1, 1, StreamingFixture.Readers.THREAD_PER_GATE,
                recordBytes);
    }

    /** One operation = one full 32 KiB buffer sent and received. */
    @Benchmark
    @OperationsPerInvocation(BUFFERS)
    public void buffers() {
        fixture.awaitDelivered(BUFFERS);
    }

    /** One operation = one 8-byte record sent and received. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
