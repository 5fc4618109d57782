package io.sluice.bench.jmh;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordFraming;
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
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Blocking partitions: {@code write} emits 64 MiB of full-buffer records into a new blocking partition and finishes
 * it (disk included); {@code read} reads a 64 MiB partition written once at setup to its end through one gate, over
 * the {@code link} (in-process or loopback TCP), with or without buffer checksums. Score: buffers per second;
 * GB/s = score x 32768 / 10^9.
 * Used by JMH's thread only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class BlockingPartitionBenchmark {

    /** Buffers per invocation: 64 MiB. */
    static final int BUFFERS = 2048;

    /** inprocess (local channel) or tcp (two environments over loopback). */
    @Param({"inprocess", "tcp"})
    public String link;

    /** none or lz4. */
    @Param({"none"})
    public String compression;

    /** shuffle.blocking.checksums: a CRC32C with every stored buffer, verified on every read, or none. */
    @Param({"true", "false"})
    public boolean checksums;

    private final List<ShuffleEnvironment> environments = new ArrayList<>();
    private ShuffleMaster master;
    private ByteBuffer record;
    private ShuffleDescriptor readable;
    private final List<ResultPartitionId> written = new ArrayList<>();

    /** Starts the environments and writes the partition that {@code read} reads. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.COMPRESSION_CODEC, compression)
                .with(ShuffleOptions.BLOCKING_CHECKSUMS, checksums);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        master = factory.createShuffleMaster(config);
        for (ShuffleEnvironmentContext context : Link.named(link).contexts(config)) {
            ShuffleEnvironment environment = factory.createShuffleEnvironment(context);
            environment.start();
            environments.add(environment);
        }
        int segment = (int) (long) config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE);
        record = ByteBuffer.allocate(segment - RecordFraming.LENGTH_BYTES);
        for (int i = 0; i < record.capacity(); i++) {
            record.put(i, (byte) (i * 31 + (i >>> 7)));
        }
        readable = writePartition();
        written.clear(); // kept until the trial ends
    }

    /** Writes and finishes one blocking partition of {@link #BUFFERS} full buffers. */
    @Benchmark
    @OperationsPerInvocation(BUFFERS)
    public void write() throws Exception {
        writePartition();
    }

    /** Reads the partition written at setup to its end, through a new gate. */
    @Benchmark
    @OperationsPerInvocation(BUFFERS)
    public long read() throws Exception {
        ShuffleEnvironment consumer = environments.get(environments.size() - 1);
        long bytes = 0;
        try (InputGate gate = Wiring.gate(consumer, "jmh-reader", 0, List.of(readable))) {
            gate.setup();
            for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
                bytes += next.get().data().remaining();
                next.get().recycle();
            }
        }
        return bytes;
    }

    /** Deletes the partitions {@code write} made. */
    @TearDown(Level.Iteration)
    public void releaseWritten() {
        environments.get(0).releasePartitionsLocally(written);
        written.clear();
    }

    /** Closes everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        for (ShuffleEnvironment environment : environments) {
            environment.close();
        }
        master.close();
    }

    private ShuffleDescriptor writePartition() throws Exception {
        ShuffleEnvironment producer = environments.get(0);
        ShuffleDescriptor descriptor = Wiring.register(master, ResultPartitionId.random(), PartitionType.BLOCKING, 1,
                new ProducerDescriptor(producer.resourceId(), producer.dataAddress()));
        try (ResultPartitionWriter writer = Wiring.writer(producer, "jmh-writer", descriptor, PartitionType.BLOCKING,
                1)) {
            writer.setup();
            for (int i = 0; i < BUFFERS; i++) {
                writer.emitRecord(record, 0);
            }
            writer.finish();
        }
        written.add(descriptor.partitionId());
        return descriptor;
    }
}
