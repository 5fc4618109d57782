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

    /**
     * The credit window: {@code defaults}, or {@code M/F} for {@code shuffle.max-buffers-per-subpartition} M and
     * {@code shuffle.floating-buffers-per-gate} F on both environments (exclusive buffers per channel stay at the
     * default). A window of 10 buffers is what Flink 2.3 fixes for every channel (2 exclusive + 8 floating, 10 per
     * subpartition); {@code -p window=40/32} measures what a wider one buys on this machine.
     */
    @Param({"defaults"})
    public String window;

    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ShuffleConfig config = withWindow(ShuffleConfig.empty(), window);
        int fullBuffer = (int) (long) config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE) - RecordFraming.LENGTH_BYTES;
        fixture = new StreamingFixture(Link.named(link), withTls(config), 1, channels,
                StreamingFixture.Readers.THREAD_PER_GATE, fullBuffer);
    }

    /**
     * @param config the benchmark's configuration
     * @param window {@code defaults} or {@code M/F}, see {@link #window}
     * @return the same with the window's two options set
     */
    static ShuffleConfig withWindow(ShuffleConfig config, String window) {
        if (window.equals("defaults")) {
            return config;
        }
        int slash = window.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("window must be 'defaults' or 'M/F' (max buffers per subpartition / "
                    + "floating buffers per gate, e.g. 40/32), not '" + window + "'");
        }
        return config.with(ShuffleOptions.MAX_BUFFERS_PER_SUBPARTITION.key(), window.substring(0, slash))
                .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE.key(), window.substring(slash + 1));
    }

    /** One operation = one full 32 KiB buffer delivered. */
    @Benchmark
    @OperationsPerInvocation(BUFFERS)
    public void fullBuffers() {
        fixture.awaitDelivered(BUFFERS);
    }
}
