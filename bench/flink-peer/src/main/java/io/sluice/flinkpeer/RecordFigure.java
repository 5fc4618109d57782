package io.sluice.flinkpeer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.core.io.IOReadableWritable;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.io.network.api.serialization.RecordDeserializer;
import org.apache.flink.runtime.io.network.api.serialization.RecordDeserializer.DeserializationResult;
import org.apache.flink.runtime.io.network.api.serialization.SpillingAdaptiveSpanningRecordDeserializer;
import org.apache.flink.runtime.io.network.api.writer.RecordWriter;
import org.apache.flink.runtime.io.network.api.writer.RecordWriterBuilder;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.InputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.UnionInputGate;

/**
 * Small-record throughput. W producer threads, each with a partition of C subpartitions; gate c reads subpartition c
 * of every partition, and one consumer thread reads all gates (a union when there are several) through Flink's
 * {@link SpillingAdaptiveSpanningRecordDeserializer}, one per channel, as a StreamTask's input does. With one
 * writer and one channel the consumer checks every sequence number.
 *
 * <p>Two producer shapes:
 * <ul>
 *   <li>{@link Producer#RECORD_WRITER} ({@code flink.records.KIND.Ww.Cch.Fms}): Flink's {@link RecordWriter}
 *       (serializer, round-robin channel selector, output flusher every F ms), as a Flink job emits.</li>
 *   <li>{@link Producer#EMIT} ({@code flink.emit.KIND.Ww.Cch.Fms}): {@link ResultPartition#emitRecord} with a
 *       pre-serialized heap ByteBuffer (length prefix + record), round-robin over the subpartitions, and a thread
 *       calling {@code flushAll()} every F ms: the shape of an engine that serializes records itself, which is how
 *       Sluice's API is driven.</li>
 * </ul>
 */
final class RecordFigure {

    /** How records get into the partition. */
    enum Producer {
        RECORD_WRITER("records"),
        EMIT("emit");

        final String figure;

        Producer(String figure) {
            this.figure = figure;
        }
    }

    private RecordFigure() {
    }

    static void run(TaskManagerPair flink, Producer shape, RecordKind kind, int writers, int channels, int flushMillis,
            Timing timing) throws Exception {
        List<ResultPartition> partitions = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            partitions.add(flink.partition(w, writers, channels));
        }
        List<SingleInputGate> gates = flink.openGates(partitions, channels);
        InputGate input = gates.size() == 1 ? gates.get(0) : new UnionInputGate(gates.toArray(new IndexedInputGate[0]));
        boolean checkOrder = writers == 1 && channels == 1;
        AtomicLong outOfOrder = new AtomicLong();
        Workers workers = new Workers();
        Tally tally = new Tally();
        workers.start("consumer", () -> consume(input, gates, kind, tally, checkOrder ? outOfOrder : null));
        for (int w = 0; w < writers; w++) {
            ResultPartition partition = partitions.get(w);
            if (shape == Producer.RECORD_WRITER) {
                workers.start("writer-" + w, () -> writeThroughRecordWriter(partition, kind, flushMillis, workers));
            } else {
                workers.start("emitter-" + w, () -> emitSerialized(partition, kind, workers));
                workers.start("flusher-" + w, () -> flushEvery(partition, flushMillis, workers));
            }
        }
        Window window = Window.measure(List.of(tally), timing.warmupSeconds, timing.measureSeconds);
        workers.checkHealthy();
        FigureLine line = FigureLine.named("flink." + shape.figure + "." + kind.label + "." + writers + "w." + channels
                        + "ch." + flushMillis + "ms")
                .with("records_per_s", window.unitsPerSecond(), 0)
                .with("MBps", window.bytesPerSecond() / 1e6, 1)
                .with("cpu_cores", window.cpuCores, 2);
        window.withCpuPerUnit(line);
        if (checkOrder) {
            line.with("seq_errors", outOfOrder.get());
        }
        line.print();
        workers.stop();
    }

    private static void writeThroughRecordWriter(ResultPartition partition, RecordKind kind, int flushMillis,
            Workers workers) throws Exception {
        RecordWriter<IOReadableWritable> writer =
                new RecordWriterBuilder<IOReadableWritable>().setTimeout(flushMillis).build(partition);
        IOReadableWritable record = kind.newRecord();
        long sequence = 0;
        while (workers.running()) {
            kind.sequence(record, sequence++);
            writer.emit(record);
        }
        writer.flushAll();
        writer.close();
        partition.finish();
    }

    private static void emitSerialized(ResultPartition partition, RecordKind kind, Workers workers) throws Exception {
        ByteBuffer serialized = ByteBuffer.allocate(kind.wireBytes());
        serialized.putInt(0, kind.bytes);
        int subpartitions = partition.getNumberOfSubpartitions();
        int target = 0;
        long sequence = 0;
        while (workers.running()) {
            serialized.putLong(RecordKind.LENGTH_BYTES, sequence++);
            serialized.clear();
            partition.emitRecord(serialized, target);
            target = target + 1 == subpartitions ? 0 : target + 1;
        }
        partition.flushAll();
        partition.finish();
    }

    /** What RecordWriter's output flusher does for the EMIT shape. */
    private static void flushEvery(ResultPartition partition, int flushMillis, Workers workers) {
        long periodNanos = flushMillis * 1_000_000L;
        while (workers.running()) {
            LockSupport.parkNanos(periodNanos);
            partition.flushAll();
        }
    }

    /** Reads every record until the input ends; counts records out of sequence into {@code outOfOrder} unless null. */
    private static void consume(InputGate input, List<SingleInputGate> gates, RecordKind kind, Tally tally,
            AtomicLong outOfOrder) throws Exception {
        String[] spillDirs = {System.getProperty("java.io.tmpdir")};
        // deserializers[gate][channel]: gate indices are 0..gates-1 (see TaskManagerPair.openGates).
        @SuppressWarnings("unchecked")
        RecordDeserializer<IOReadableWritable>[][] deserializers = new RecordDeserializer[gates.size()][];
        for (SingleInputGate gate : gates) {
            RecordDeserializer<IOReadableWritable>[] perChannel = deserializers[gate.getGateIndex()] =
                    newDeserializerArray(gate.getNumberOfInputChannels());
            for (int c = 0; c < perChannel.length; c++) {
                perChannel[c] = new SpillingAdaptiveSpanningRecordDeserializer<>(spillDirs);
            }
        }
        IOReadableWritable record = kind.newRecord();
        long expected = 0;
        int wireBytes = kind.wireBytes();
        Optional<BufferOrEvent> next;
        while ((next = input.getNext()).isPresent()) {
            BufferOrEvent bufferOrEvent = next.get();
            if (!bufferOrEvent.isBuffer()) {
                continue;
            }
            InputChannelInfo channel = bufferOrEvent.getChannelInfo();
            RecordDeserializer<IOReadableWritable> deserializer =
                    deserializers[channel.getGateIdx()][channel.getInputChannelIdx()];
            deserializer.setNextBuffer(bufferOrEvent.getBuffer());
            long records = 0;
            DeserializationResult result;
            do {
                result = deserializer.getNextRecord(record);
                if (result.isFullRecord()) {
                    records++;
                    if (outOfOrder != null) {
                        long sequence = kind.sequence(record);
                        if (sequence != expected) {
                            outOfOrder.incrementAndGet();
                        }
                        expected = sequence + 1;
                    }
                }
            } while (!result.isBufferConsumed());
            tally.add(records * wireBytes, records);
        }
    }

    @SuppressWarnings("unchecked")
    private static RecordDeserializer<IOReadableWritable>[] newDeserializerArray(int length) {
        return new RecordDeserializer[length];
    }
}
