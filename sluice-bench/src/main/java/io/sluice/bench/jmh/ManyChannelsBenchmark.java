package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Many channels of 8-byte records, default 100 ms flush interval. A shape {@code PxS} is P producer threads, each
 * with its own partition of S subpartitions that it fills round robin; gate s reads subpartition s of every
 * partition (P channels), as Flink's peer and a Flink job lay it out.
 * <ul>
 *   <li>{@code 1x100}: one producer, 100 single-channel gates read as one union by one thread.</li>
 *   <li>{@code 4x100}: Flink's own network benchmark shape and the peer's {@code records long 4 100 100}: 4
 *       producers, 100 gates of 4 channels, all 400 channels read as one union by one receiver thread.</li>
 *   <li>{@code 10x10}: 10 producers x 10 gates all-to-all, a reader thread per gate (the one shape read that way:
 *       as many producers as gates).</li>
 *   <li>{@code 1x1000}: as {@code 1x100} with 1,000 channels into one (union) gate, to set against {@code 1x100}.</li>
 * </ul>
 * Every gate has 2 exclusive buffers per channel and 8 floating buffers (the defaults), and the producer side at
 * most 2 buffers per subpartition (plus 8). Each environment gets {@link #memoryFor} its channels: 11 segments per
 * channel, at least the default 64 MiB (so 1x100 and 10x10 run with the defaults, 4x100 with 138 MiB and 1x1000
 * with 344 MiB).
 * Score: records per second. The Flink peer's figure for {@code 4x100} is {@code flink.records.long.4w.100ch.100ms}.
 *
 * <p>Warm-up: 15 s, not the suite's 3. With {@code 10x10}'s 20 busy threads on 2 vCPUs the JIT's compiler thread
 * gets about a tenth of a CPU, so the C2 compilations of {@code ResultPartition.emit} and {@code RecordReader.next}
 * can finish well after a 3 s warm-up (run with {@code -jvmArgsAppend -XX:+PrintCompilation} to see when), and a
 * fork whose measured iterations still run C1 code reports a fraction of the records per second of the others.
 * bench/compare-with-flink.sh gives both sides of this group the same longer warm-up ({@code WARM_MANY}).
 */
@Warmup(iterations = 15, time = 1)
public class ManyChannelsBenchmark extends StreamingBenchmark {

    /** Records per invocation: tens of milliseconds at the expected tens of M records/s. */
    static final int RECORDS = 1_000_000;
    /** A long, as in Flink's networkThroughput benchmark. */
    private static final int RECORD_BYTES = 8;

    /** PRODUCERSxSUBPARTITIONS: 1x100, 4x100, 10x10 or 1x1000. */
    @Param({"1x100", "4x100", "10x10", "1x1000"})
    public String shape;

    /**
     * The output flush interval in milliseconds: 100 (the default, and the compared figures), or e.g. 1000 to see how
     * much of a shape's cost is the partial buffers a flush sends (with 1,000 subpartitions a buffer takes longer than
     * 100 ms to fill at tens of M records/s, so most leave part-full).
     */
    @Param({"100"})
    public int flushMillis;

    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String[] sides = shape.split("x");
        if (sides.length != 2) {
            throw new IllegalArgumentException("shape '" + shape + "' is not PRODUCERSxSUBPARTITIONS, e.g. 10x10");
        }
        int producers = Integer.parseInt(sides[0]);
        int subpartitions = Integer.parseInt(sides[1]);
        // All-to-all (as many producers as gates) is read by a thread per gate; every other shape by one thread.
        StreamingFixture.Readers readers = producers > 1 && producers == subpartitions
                ? StreamingFixture.Readers.THREAD_PER_GATE : StreamingFixture.Readers.ONE_THREAD;
        ShuffleConfig defaults = withTls(ShuffleConfig.empty());
        ShuffleConfig config = defaults.with(ShuffleOptions.MEMORY_TOTAL, memoryFor(defaults, producers * subpartitions))
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofMillis(flushMillis));
        fixture = new StreamingFixture(Link.named(link), config, producers, subpartitions, readers, RECORD_BYTES);
    }

    /**
     * Network memory of each environment for {@code channels} channels (subpartitions on the producer, input channels
     * on the consumer): per channel its exclusive buffers, a gate's floating buffers (as if each channel were its own
     * gate: an upper bound) and one more (the producer's share), at least the configured total.
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
