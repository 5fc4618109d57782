package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * 100 channels of 8-byte records, default 100 ms flush interval. {@code 1x100}: one producer with
 * 100 subpartitions, read as one gate of 100 channels (a union of the 100 single-channel gates)
 * by one thread. {@code 10x10}: 10 producers x 10 consumers all-to-all, a thread each.
 * Score: records per second. The Flink peer's nearest figure is {@code flink.records.long.4w.100ch.100ms}
 * (4 writers x 100 channels, one receiver thread).
 */
public class ManyChannelsBenchmark extends StreamingBenchmark {

    /** Records per invocation: tens of milliseconds at the expected tens of M records/s. */
    static final int RECORDS = 1_000_000;
    /** A long, as in Flink's networkThroughput benchmark. */
    private static final int RECORD_BYTES = 8;

    /** PRODUCERSxSUBPARTITIONS: 1x100 or 10x10. */
    @Param({"1x100", "10x10"})
    public String shape;


    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String[] sides = shape.split("x");
        if (sides.length != 2) {
            throw new IllegalArgumentException("shape '" + shape + "' is not PRODUCERSxSUBPARTITIONS, e.g. 10x10");
        }
        int producers = Integer.parseInt(sides[0]);
        StreamingFixture.Readers readers = producers == 1
                ? StreamingFixture.Readers.ONE_THREAD : StreamingFixture.Readers.THREAD_PER_GATE;
        fixture = new StreamingFixture(Link.named(link), withTls(ShuffleConfig.empty()), producers, Integer.parseInt(sides[1]),
                readers, RECORD_BYTES);
    }

    /** One operation = one record delivered. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
