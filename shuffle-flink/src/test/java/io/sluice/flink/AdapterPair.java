package io.sluice.flink;

import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.NettyShuffleServiceFactory;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A producer and a consumer Sluice environment (one, for the in-process link), the Flink adapter's writers and gates
 * on them, and how a test reads Flink's buffers and events from such a gate. Every segment is back in both pools
 * when it closes.
 */
final class AdapterPair implements AutoCloseable {

    /** How long a read waits for the gate: a hang guard, never a measure. */
    static final long WAIT_NANOS = 20_000_000_000L;
    /** The environments' segment size. */
    static final int SEGMENT_SIZE = 4096;



    private final NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
    private final ShuffleMaster master;
    private final ShuffleEnvironment producer;
    private final ShuffleEnvironment consumer;
    private final Map<SluiceResultPartitionWriter, ShuffleDescriptor> descriptors = new HashMap<>();

    AdapterPair(String link) throws Exception {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, 2L << 20)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, (long) SEGMENT_SIZE)
                // Only explicit flushes and events send data, so each buffer here holds whole records (on a
                // timed flush a record may span buffers, which Flink's deserializer handles in the job tests).
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofHours(1))
                .with(ShuffleOptions.NETTY_TRANSPORT, link.equals("in-process") ? "local" : link)
                .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
                .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1);
        master = factory.createShuffleMaster(config);
        producer = factory.createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId("p")));
        consumer = link.equals("in-process") ? producer
                : factory.createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId("c")));
        producer.start();
        if (consumer != producer) {
            consumer.start();
        }
    }

    SluiceResultPartitionWriter writer(int subpartitions) throws Exception {
        return writer(subpartitions, new TaskEventDispatcher());
    }

    /** A set-up writer whose checkpointed output goes to {@code state}, as Flink's task wires it. */
    SluiceResultPartitionWriter writer(int subpartitions, ChannelStateWriter state) throws Exception {
        SluiceResultPartitionWriter writer = writer(subpartitions);
        writer.setChannelStateWriter(state);
        return writer;
    }

    /** A set-up writer whose consumers' task events go to {@code dispatcher}. */
    SluiceResultPartitionWriter writer(int subpartitions, TaskEventDispatcher dispatcher) throws Exception {
        ResultPartitionID flinkId = new ResultPartitionID(new IntermediateResultPartitionID(),
                ExecutionAttemptID.randomId());
        ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                new io.sluice.api.PartitionDescriptor(PartitionIds.toSluice(flinkId),
                        PartitionType.PIPELINED_BOUNDED, subpartitions, 0),
                new ProducerDescriptor(producer.resourceId(), producer.dataAddress())).join();
        io.sluice.api.ResultPartitionWriter sluice = producer.createResultPartitionWriters("producer", List.of(
                new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED,
                        subpartitions))).get(0);
        SluiceResultPartitionWriter writer = new SluiceResultPartitionWriter(sluice, flinkId, 0, "producer", 128,
                false, SEGMENT_SIZE, Runnable::run, dispatcher);
        writer.setup();
        descriptors.put(writer, descriptor);
        return writer;
    }

    /**
     * A gate whose Flink channel {@code i} reads subpartition {@code subpartitions[i]} of {@code writers[i]}'s
     * partition, built as the environment builds it ({@link SubpartitionGroups}) and requested as StreamTask
     * does.
     */
    SluiceInputGate gate(SluiceResultPartitionWriter[] writers, int[] subpartitions, int gateIndex)
            throws Exception {
        SluiceInputGate gate = unrequestedGate(writers, subpartitions, gateIndex);
        gate.requestPartitions();
        return gate;
    }

    /**
     * A gate as {@link #gate(SluiceResultPartitionWriter[], int[], int)} builds it, its recovered state consumed,
     * before it requests its partitions: its producers send it nothing until {@code requestPartitions()}.
     */
    SluiceInputGate unrequestedGate(SluiceResultPartitionWriter[] writers, int[] subpartitions, int gateIndex)
            throws Exception {
        SluiceInputGate gate = recoveringGate(writers, subpartitions, gateIndex);
        gate.finishReadRecoveredState();
        assertTrue(gate.getAvailableFuture().isDone(), "available to the task's poll once the state is read");
        assertFalse(gate.getStateConsumedFuture().isDone(), "consumed only on the task's poll");
        assertTrue(gate.pollNext().isEmpty());
        assertTrue(gate.getStateConsumedFuture().isDone());
        assertFalse(gate.getAvailableFuture().isDone(), "then waiting for the partition request");
        return gate;
    }

    /**
     * A gate as {@link #gate(SluiceResultPartitionWriter[], int[], int)} builds it, set up only: Flink's
     * channel-state reader has not finished handing it recovered input.
     */
    SluiceInputGate recoveringGate(SluiceResultPartitionWriter[] writers, int[] subpartitions, int gateIndex) {
        ShuffleDescriptor[] channels = new ShuffleDescriptor[writers.length];
        ResultPartitionID[] flinkIds = new ResultPartitionID[writers.length];
        for (int i = 0; i < writers.length; i++) {
            channels[i] = descriptors.get(writers[i]);
            flinkIds[i] = writers[i].getPartitionId();
        }
        SubpartitionGroups groups = SubpartitionGroups.of(subpartitions, channels);
        io.sluice.api.InputGate sluice = groups.createGate(consumer, "consumer");
        SluiceInputGate gate = new SluiceInputGate("consumer", gateIndex, ResultPartitionType.PIPELINED_BOUNDED,
                sluice, groups.toSluiceChannel(), subpartitions, subpartitions,
                hooks -> FlinkChannelStandIns.create("consumer", gateIndex, new IntermediateDataSetID(),
                        ResultPartitionType.PIPELINED_BOUNDED, flinkIds, subpartitions, hooks),
                new RecoveredInput(sluice, groups.toSluiceChannel(), SEGMENT_SIZE, 2 * writers.length),
                new SimpleCounter());
        gate.setup();
        return gate;
    }

    /** A gate reading {@code subpartition} of {@code writer}'s partition, requested as StreamTask does. */
    SluiceInputGate gate(SluiceResultPartitionWriter writer, int subpartition, int gateIndex) throws Exception {
        return gate(new SluiceResultPartitionWriter[] {writer}, new int[] {subpartition}, gateIndex);
    }

    @Override
    public void close() {
        master.close();
        consumer.close();
        producer.close();
        assertEquals(producer.metrics().totalSegments(), producer.metrics().availableSegments());
        assertEquals(consumer.metrics().totalSegments(), consumer.metrics().availableSegments());
    }

    /** The next buffer or event, waiting for the gate within the limit. */
    static BufferOrEvent pollWithin(SluiceInputGate gate) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            gate.getAvailableFuture().get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            Optional<BufferOrEvent> next = gate.pollNext();
            if (next.isPresent()) {
                return next.get();
            }
        }
        throw new AssertionError("nothing from " + gate + " within the limit");
    }

    /** The records of a buffer in Flink's framing; recycles it. */
    static List<Integer> records(BufferOrEvent bufferOrEvent) {
        List<Integer> records = new ArrayList<>();
        Buffer buffer = bufferOrEvent.getBuffer();
        try {
            ByteBuffer bytes = buffer.getNioBufferReadable();
            while (bytes.hasRemaining()) {
                assertEquals(Integer.BYTES, bytes.getInt(), "Flink's framing: length, then the record");
                records.add(bytes.getInt());
            }
        } finally {
            buffer.recycleBuffer();
        }
        return records;
    }

    /** Reads until an event, adding the records of the buffers before it; returns the event. */
    static AbstractEvent readUntilEvent(SluiceInputGate gate, List<Integer> records) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            Optional<AbstractEvent> event = readOne(gate, records);
            if (event.isPresent()) {
                return event.get();
            }
        }
        throw new AssertionError("no event within the limit; read " + records);
    }

    /** Waits for one buffer or event; adds a buffer's records and returns empty, or returns the event. */
    static Optional<AbstractEvent> readOne(SluiceInputGate gate, List<Integer> records) throws Exception {
        gate.getAvailableFuture().get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        Optional<BufferOrEvent> next = gate.pollNext();
        if (next.isEmpty()) {
            return Optional.empty();
        }
        if (next.get().isEvent()) {
            return Optional.of(next.get().getEvent());
        }
        records.addAll(records(next.get()));
        return Optional.empty();
    }

    /** A record as Flink's record writer hands it over: its 4-byte length, then its bytes. */
    static ByteBuffer flinkRecord(int value) {
        ByteBuffer record = ByteBuffer.allocate(8);
        record.putInt(Integer.BYTES).putInt(value).flip();
        return record;
    }

    /** Reads buffers until {@code count} records came, failing on an event. */
    static List<Integer> readRecords(SluiceInputGate gate, int count) throws Exception {
        List<Integer> records = new ArrayList<>();
        while (records.size() < count) {
            readOne(gate, records).ifPresent(event -> {
                throw new AssertionError("an event among the records: " + event + " after " + records);
            });
        }
        return records;
    }

    /** Records {@code from} (inclusive) to {@code to} (exclusive) in Flink's framing, back to back. */
    static byte[] framed(int from, int to) {
        ByteBuffer all = ByteBuffer.allocate((to - from) * 8);
        for (int i = from; i < to; i++) {
            all.put(flinkRecord(i));
        }
        return all.array();
    }
}
