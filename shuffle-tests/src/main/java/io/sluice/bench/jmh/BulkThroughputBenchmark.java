package io.sluice.bench.jmh;

import io.sluice.api.RecordFraming;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Bulk throughput: one producer emits records that fill exactly one 32 KiB buffer each (length
 * prefix included), round-robin to 1 or 4 subpartitions; one gate and thread per subpartition.
 * Score: buffers per second; GB/s = score x 32768 / 10^9. Same shape as the Flink peer's
 * {@code flink.bulk.1ch} and {@code flink.bulk.4ch}.
 */
public class BulkThroughputBenchmark extends StreamingBenchmark {

    /** Buffers per invocation: 64 MiB, tens of milliseconds at GB/s, so the wait is precise. */
    static final int BUFFERS = 2048;

    /** Subpartitions of the producer, each read by its own gate and thread. */
    @Param({"1", "4"})
    public int channels;


    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty();
        int fullBuffer = (int) (long) config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE) - RecordFraming.LENGTH_BYTES;
        fixture = new StreamingFixture(Link.named(link), withTls(config), 1, channels, StreamingFixture.Readers.THREAD_PER_GATE,
                fullBuffer);
    }

    /** One operation = one full 32 KiB buffer delivered. */
    @Benchmark
    @OperationsPerInvocation(BUFFERS)
    public void fullBuffers() {
        fixture.awaitDelivered(BUFFERS);
    }
}
