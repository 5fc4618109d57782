package io.sluice.flinkpeer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;

/**
 * Bulk throughput, the shape of Sluice's BulkThroughputBenchmark: one producer thread emits records of exactly one
 * network buffer (32 KiB) round-robin over N subpartitions; gate g reads subpartition g on its own thread and
 * recycles every buffer. Prints {@code flink.bulk.Nch GBps=... buffers_per_s=... cpu_cores=...}.
 */
final class BulkFigure {

    private BulkFigure() {
    }

    static void run(TaskManagerPair flink, int channels, Timing timing) throws Exception {
        ResultPartition partition = flink.partition(0, 1, channels);
        List<SingleInputGate> gates = flink.openGates(List.of(partition), channels);
        Workers workers = new Workers();
        List<Tally> tallies = new ArrayList<>();
        for (SingleInputGate gate : gates) {
            Tally tally = new Tally();
            tallies.add(tally);
            workers.start("consumer-gate-" + gate.getGateIndex(), () -> drain(gate, tally));
        }
        workers.start("producer", () -> {
            // A heap buffer, as a serializer's output would be; emitRecord copies it into one pooled segment.
            ByteBuffer record = ByteBuffer.allocate(Timing.SEGMENT_BYTES);
            for (int i = 0; i < Timing.SEGMENT_BYTES; i++) {
                record.put(i, (byte) (i * 31));
            }
            int target = 0;
            while (workers.running()) {
                record.clear();
                partition.emitRecord(record, target);
                target = target + 1 == channels ? 0 : target + 1;
            }
            partition.finish();
        });
        Window window = Window.measure(tallies, timing.warmupSeconds, timing.measureSeconds);
        workers.checkHealthy();
        FigureLine line = FigureLine.named("flink.bulk." + channels + "ch")
                .with("GBps", window.bytesPerSecond() / 1e9, 3)
                .with("buffers_per_s", window.unitsPerSecond(), 0)
                .with("cpu_cores", window.cpuCores, 2);
        window.withCpuPerUnit(line).print();
        workers.stop();
    }

    /** Reads buffers until the gate ends, counting and recycling each. */
    private static void drain(SingleInputGate gate, Tally tally) throws Exception {
        Optional<BufferOrEvent> next;
        while ((next = gate.getNext()).isPresent()) {
            BufferOrEvent bufferOrEvent = next.get();
            if (bufferOrEvent.isBuffer()) {
                Buffer buffer = bufferOrEvent.getBuffer();
                int bytes = buffer.getSize();
                buffer.recycleBuffer();
                tally.add(bytes, 1);
            }
        }
    }
}
