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
 *
 * <p>The record shape (see {@link RecordShape} and docs/benchmarks.md, "Record shape") is a parameter because the
 * cost per record depends on it: {@code recordBuffer} (heap, direct, heap-new), {@code payload} (fixed: zero
 * bytes, only counted; sequenced: a sequence number written into every record and checked on arrival) and
 * {@code reader} (gate: the RecordReader reads the gate itself; union: through a UnionInputGate, as an engine's
 * multi-input task does). The defaults are the suite's first shape, kept so that its figures stay comparable; the
 * comparison script also runs {@code recordBuffer=heap payload=sequenced reader=union}, the shape of the record
 * figures of the external Flink harness ({@code PEER_DIR/run.sh}).
 */
public class RecordThroughputBenchmark extends StreamingBenchmark {

    /** Records per invocation: tens of milliseconds at the expected 10-50 M records/s. */
    static final int RECORDS = 1_000_000;

    /** Bytes of each record, not counting the library's length prefix. */
    @Param({"8", "100"})
    public int recordBytes;

    /** heap, direct or heap-new: where the producer's record bytes live. */
    @Param({"heap"})
    public String recordBuffer;

    /** fixed (zero bytes, counted) or sequenced (numbered by the producer, checked by the consumer). */
    @Param({"fixed"})
    public String payload;

    /** gate (the RecordReader reads the gate) or union (through a UnionInputGate of that one gate). */
    @Param({"gate"})
    public String reader;

    /** Starts the stream. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        StreamingFixture.Readers readers;
        switch (reader) {
            case "gate":
                readers = StreamingFixture.Readers.THREAD_PER_GATE;
                break;
            case "union":
                readers = StreamingFixture.Readers.ONE_THREAD;
                break;
            default:
                throw new IllegalArgumentException("reader '" + reader + "' is not gate or union");
        }
        fixture = new StreamingFixture(Link.named(link), withTls(ShuffleConfig.empty()), 1, 1, readers, recordBytes,
                RecordShape.of(recordBuffer, payload, recordBytes));
    }

    /** One operation = one record delivered. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void records() {
        fixture.awaitDelivered(RECORDS);
    }
}
