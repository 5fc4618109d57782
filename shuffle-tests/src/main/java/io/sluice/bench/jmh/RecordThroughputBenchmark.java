package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Small-record throughput: one producer, one subpartition, one consumer, records of 8 or 100
 * bytes, the default 100 ms flush interval. Score: records per second. Same shape as the Flink
 * peer's {@code flink.records.long.1w.1ch.100ms} (8 bytes) and {@code flink.records.b100.1w.1ch.100ms}.
 */
public class RecordThroughputBenchmark extends StreamingBenchmark {

    /** Records per invocation: tens of milliseconds at the expected 10-50 M records/s. */
    static final int RECORDS = 1_000_000;

    /** Bytes of each record, not counting the library's length prefix. */
    @Param({"8", "100"})
    public int recordBytes;


    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new StreamingFixture(Link.named(link), withTls(ShuffleConfig.empty()), 1, 1,
                StreamingFixture.Readers.THREAD_PER_GATE, recordBytes);
    }

    /** One operation = one record delivered. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
