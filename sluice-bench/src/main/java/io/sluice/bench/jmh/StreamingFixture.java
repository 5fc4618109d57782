package io.sluice.bench.jmh;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.api.UnionInputGate;
import io.sluice.bench.run.Environments;
import io.sluice.tests.support.Wiring;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A steady stream for throughput benchmarks: P producer threads emit one fixed record round-robin
 * to the S subpartitions of their partitions, without pause, and consumer threads count what
 * arrives. A benchmark invocation waits for N more delivered records, so JMH measures delivered
 * (not buffered) throughput. Built and closed by the JMH setup/teardown thread;
 * {@link #awaitDelivered} from the benchmark thread.
 */
final class StreamingFixture {

    /** How consumer threads read the gates. */
    enum Readers {
        /** Gate c reads subpartition c of every partition, on its own thread. */
        THREAD_PER_GATE,
        /** The same gates read as one union by a single thread. */
        ONE_THREAD
    }

    /** Publish deliveries about every 64 KiB of records: rare enough to cost nothing, often enough to stop on time. */
    private static final int PUBLISH_BYTES = 64 * 1024;
    private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);
    private static final long JOIN_MILLIS = 30_000;

    private final Environments environments;
    private final ShuffleMaster master;
    private final List<ResultPartitionWriter> writers = new ArrayList<>();
    private final List<RecordReader> readers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final DeliveryCounter delivered = new DeliveryCounter();
    private final AtomicLong emitted = new AtomicLong();
    /** CPU per delivered record from the first invocation (warm-up included) to the teardown. */
    private final ThreadCpu cpu = new ThreadCpu();
    private volatile boolean producing = true;

    /**
     * Builds the topology and starts the threads.
     *
     * @param link where the records go through
     * @param config the library configuration
     * @param producers partitions, one producer thread each
     * @param subpartitions subpartitions per partition = gates
     * @param readers how the gates are read
     * @param recordBytes the size of every record
     * @throws Exception when the library cannot set it up
     */
    StreamingFixture(Link link, ShuffleConfig config, int producers, int subpartitions, Readers readers, int recordBytes)
            throws Exception {
        this(link, config, producers, subpartitions, readers, recordBytes, RecordShape.FIXED_HEAP);
    }

    /**
     * Builds the topology and starts the threads.
     *
     * @param link where the records go through
     * @param config the library configuration
     * @param producers partitions, one producer thread each
     * @param subpartitions subpartitions per partition = gates
     * @param readers how the gates are read
     * @param recordBytes the size of every record
     * @param shape how producers make records and whether consumers check them
     * @throws Exception when the library cannot set it up
     */
    StreamingFixture(Link link, ShuffleConfig config, int producers, int subpartitions, Readers readers, int recordBytes,
            RecordShape shape) throws Exception {
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        environments = Environments.start(factory, link.contexts(config));
        master = factory.createShuffleMaster(config);
        ShuffleEnvironment producerSide = environments.get(0);
        ShuffleEnvironment consumerSide = environments.get(link.consumerEnvironment());
        List<ShuffleDescriptor> partitions = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            ShuffleDescriptor partition = Wiring.register(master, ResultPartitionId.random(), subpartitions,
                    new ProducerDescriptor(producerSide.resourceId(), producerSide.dataAddress()));
            partitions.add(partition);
            ResultPartitionWriter writer = Wiring.writer(producerSide, "jmh-producer-" + p, partition, subpartitions);
            writer.setup();
            writers.add(writer);
        }
        List<InputGate> gates = new ArrayList<>();
        for (int c = 0; c < subpartitions; c++) {
            InputGate gate = Wiring.gate(consumerSide, "jmh-consumer-" + c, c, partitions);
            gate.setup();
            gates.add(gate);
        }
        if (readers == Readers.ONE_THREAD) {
            this.readers.add(new RecordReader(new UnionInputGate(gates)));
        } else {
            for (InputGate gate : gates) {
                this.readers.add(new RecordReader(gate));
            }
        }
        int publishEvery = Math.max(1, PUBLISH_BYTES / Math.max(1, recordBytes));
        // Each gate has a channel per producer; one reader reads one gate, or all of them as a union.
        int channelsPerReader = readers == Readers.ONE_THREAD ? producers * subpartitions : producers;
        for (int r = 0; r < this.readers.size(); r++) {
            RecordReader reader = this.readers.get(r);
            long[] expected = shape.sequenced ? new long[channelsPerReader] : null;
            threads.add(daemon("jmh-consumer-" + r, () -> consume(reader, publishEvery, expected)));
        }
        for (int p = 0; p < producers; p++) {
            ResultPartitionWriter writer = writers.get(p);
            threads.add(daemon("jmh-producer-" + p, () -> produce(writer, recordBytes, shape)));
        }
        for (Thread thread : threads) {
            thread.start();
        }
    }

    /**
     * Waits until {@code records} more records than now have arrived.
     *
     * @param records how many more
     */
    void awaitDelivered(long records) {
        cpu.mark(delivered.total());
        delivered.awaitMore(records);
    }

    /**
     * Emits records round-robin until told to stop. The record buffer is reused (heap or direct) or new for every
     * record, as {@code shape} says; its bytes are zero (the benchmarks measure the path, not the payload) except,
     * when sequenced, its first 8 bytes: the record's number within its subpartition.
     */
    private void produce(ResultPartitionWriter writer, int recordBytes, RecordShape shape) {
        boolean newEveryRecord = shape.buffer == RecordShape.RecordBuffer.HEAP_NEW;
        boolean sequenced = shape.sequenced;
        ByteBuffer reused = shape.buffer.allocate(recordBytes);
        int subpartitions = writer.numberOfSubpartitions();
        long[] sequences = new long[subpartitions];
        int target = 0;
        long sent = 0;
        try {
            while (producing) {
                ByteBuffer record = newEveryRecord ? ByteBuffer.allocate(recordBytes) : reused;
                if (sequenced) {
                    record.putLong(0, sequences[target]++);
                }
                writer.emitRecord(record, target);
                sent++;
                if (++target == subpartitions) {
                    target = 0;
                }
            }
            emitted.addAndGet(sent);
            writer.finish();
            writer.close();
        } catch (Throwable t) { // any failure must end the benchmark, not leave it waiting
            emitted.addAndGet(sent);
            delivered.fail(t);
        }
    }

    /**
     * Reads and counts records until the gate ends. With {@code expected} (one slot per channel of the reader's
     * gate) it also checks every record's number (see {@link RecordShape}): each channel carries one (producer,
     * subpartition) stream, numbered from 0 without gaps; a gap, a repeat or a reordering fails the benchmark.
     */
    private void consume(RecordReader reader, int publishEvery, long[] expected) {
        long unpublished = 0;
        try {
            RecordOrEvent next;
            while ((next = reader.next()) != null) {
                if (next.isEvent()) {
                    continue;
                }
                if (expected != null) {
                    check(next, expected);
                }
                if (++unpublished == publishEvery) {
                    delivered.publish(unpublished);
                    unpublished = 0;
                }
            }
            delivered.publish(unpublished);
            reader.close();
        } catch (Throwable t) { // any failure must end the benchmark, not leave it waiting
            delivered.fail(t);
        }
    }

    private static void check(RecordOrEvent record, long[] expected) {
        int channel = record.channelIndex();
        ByteBuffer data = record.data();
        long sequence = data.getLong(data.position());
        if (sequence != expected[channel]) {
            throw new IllegalStateException("channel " + channel + " delivered record " + sequence
                    + " where record " + expected[channel] + " was due");
        }
        expected[channel] = sequence + 1;
    }

    /**
     * Stops the producers, lets the consumers read to the end, checks that every record emitted
     * arrived and that every buffer came back, and closes everything.
     *
     * @throws Exception when records were lost, buffers leaked, or a thread did not stop
     */
    void close() throws Exception {
        printCosts(); // while every thread still runs: a thread that has ended has no CPU time to read
        producing = false;
        try {
            for (Thread thread : threads) {
                thread.join(JOIN_MILLIS);
                if (thread.isAlive()) {
                    throw new IllegalStateException(thread.getName() + " did not stop within " + JOIN_MILLIS + " ms");
                }
            }
            if (emitted.get() != delivered.total()) {
                throw new IllegalStateException("emitted " + emitted.get() + " records but " + delivered.total() + " arrived");
            }
            int notReturned = environments.awaitBuffersReturned(RELEASE_GRACE);
            if (notReturned > 0) {
                throw new IllegalStateException(notReturned + " buffers not returned: " + environments.describeSegmentsInUse());
            }
        } finally {
            for (ResultPartitionWriter writer : writers) {
                writer.close();
            }
            for (RecordReader reader : readers) {
                reader.close();
            }
            master.close();
            environments.close();
        }
    }

    /**
     * Prints (stderr, in the JMH output) the data buffers the producing side wrote to the transport and their mean
     * size (the cost per buffer is paid per buffer sent, and with many channels a flush may send a buffer before it
     * is full; nothing for in-process links, which send no buffer), and the CPU per delivered record by thread.
     */
    private void printCosts() {
        ShuffleMetrics sent = environments.get(0).metrics();
        if (sent.buffersSent() > 0) {
            System.err.printf("# data buffers sent: %d, %.0f bytes per buffer; records delivered: %d%n",
                    sent.buffersSent(), (double) sent.bytesSent() / sent.buffersSent(), delivered.total());
        }
        String cpuLine = cpu.report(delivered.total());
        if (!cpuLine.isEmpty()) {
            System.err.println(cpuLine);
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }
}
