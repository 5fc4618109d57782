package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Many channels of 8-byte records, default 100 ms flush interval. {@code 1x100}: one producer with
 * 100 subpartitions, read as one gate of 100 channels (a union of the 100 single-channel gates)
 * by one thread. {@code 10x10}: 10 producers x 10 consumers all-to-all, a thread each. {@code 1x1000}:
 * as {@code 1x100} with 1,000 channels into one (union) gate, to set against {@code 1x100}. Both shapes give
 * every channel the same memory: its own single-channel gate with 2 exclusive and 8 floating buffers
 * (the defaults), i.e. 10 x 32 KiB = 320 KiB per channel on the consumer, and at most 2 buffers per
 * subpartition (plus 8) on the producer. Each environment gets {@link #memoryFor} that many channels:
 * 11 segments per channel, at least the default 64 MiB (so 1x100 and 10x10 run with the defaults, and
 * 1x1000 with 344 MiB).
 * Score: records per second. The Flink peer's nearest figure is {@code flink.records.long.4w.100ch.100ms}
 * (4 writers x 100 channels, one receiver thread).
 */
public class ManyChannelsBenchmark extends StreamingBenchmark {

    /** Records per invocation: tens of milliseconds at the expected tens of M records/s. */
    static final int RECORDS = 1_000_000;
    /** A long, as in Flink's networkThroughput benchmark. */
    private static final int RECORD_BYTES = 8;

    /** PRODUCERSxSUBPARTITIONS: 1x100, 10x10 or 1x1000. */
    @Param({"1x100", "10x10", "1x1000"})
    public String shape;


    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String[] sides = shape.split("x");
        if (sides.length != 2) {
            throw new IllegalArgumentException("shape '" + shape + "' is not PRODUCERSxSUBPARTITIONS, e.g. 10x10");
        }
        int producers = Integer.parseInt(sides[0]);
        int subpartitions = Integer.parseInt(sides[1]);
        StreamingFixture.Readers readers = producers == 1
                ? StreamingFixture.Readers.ONE_THREAD : StreamingFixture.Readers.THREAD_PER_GATE;
        ShuffleConfig defaults = withTls(ShuffleConfig.empty());
        ShuffleConfig config = defaults.with(ShuffleOptions.MEMORY_TOTAL, memoryFor(defaults, producers * subpartitions));
        fixture = new StreamingFixture(Link.named(link), config, producers, subpartitions, readers, RECORD_BYTES);
    }

    /**
     * Network memory of each environment for {@code channels} channels, each its own gate: the channel's exclusive
     * buffers, its gate's floating buffers and one more (the producer's share), at least the configured total.
     */
    static long memoryFor(ShuffleConfig config, int channels) {
        long segmentsPerChannel = config.get(ShuffleOptions.BUFFERS_PER_CHANNEL)
                + config.get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE) + 1;
        long needed = segmentsPerChannel * config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE) * channels;
        return Math.max(config.get(ShuffleOptions.MEMORY_TOTAL), needed);
    }

    /** One operation = one record delivered. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
