package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Small-record throughput: one producer, one subpartition, one consumer, records of 8 or 100
 * bytes, the default 100 ms flush interval. Score: records per second. Same shape as the Flink
 * peer's {@code flink.records.long.1w.1ch.100ms} (8 bytes) and {@code flink.records.b100.1w.1ch.100ms}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=2g", "-XX:+UseG1GC",
        "-Dslf4j.internal.verbosity=ERROR"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
public class RecordThroughputBenchmark {

    /** Records per invocation: tens of milliseconds at the expected 10-50 M records/s. */
    static final int RECORDS = 1_000_000;

    /** Bytes of each record, not counting the library's length prefix. */
    @Param({"8", "100"})
    public int recordBytes;

    /** See {@link Link}: tcp, nio, epoll, local or inprocess. */
    @Param({"tcp", "local", "inprocess"})
    public String link;

    private StreamingFixture fixture;

    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new StreamingFixture(Link.named(link), ShuffleConfig.empty(), 1, 1,
                StreamingFixture.Readers.THREAD_PER_GATE, recordBytes);
    }

    /** Stops the stream and checks that nothing was lost or leaked. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
    }

    /** One operation = one record delivered. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
