package io.sluice.netty;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.netty.testing.MemoryAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code broadcastBlockingEvent} and {@code resumeConsumption} (the aligned-barrier contract): after the blocking
 * event a subpartition hands its consumer nothing until that consumer resumes, on in-process channels and over each
 * transport alike; per subpartition, and with acknowledgements routed to one channel's producer only.
 */
class BlockingEventTest {

    private static final int BEFORE = 50;
    private static final int AFTER = 50;

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio"})
    void blockingEvent_holdsBackEverythingBehindIt_untilTheConsumerResumes(String link) throws Exception {
        try (Link env = new Link(link)) {
            ResultPartitionWriter writer = env.writer(2);
            InputGate gate0 = env.gate(writer, 0);
            InputGate gate1 = env.gate(writer, 1);
            ByteBuffer record = ByteBuffer.allocate(4);
            for (int i = 0; i < BEFORE; i++) {
                writer.emitRecord(record.putInt(0, i), i % 2);
            }
            writer.broadcastBlockingEvent(ByteBuffer.wrap(new byte[] {42}));
            for (int i = BEFORE; i < BEFORE + AFTER; i++) {
                writer.emitRecord(record.putInt(0, i), i % 2);
            }
            writer.flushAll();
            writer.finish();
            writer.close();

            try (RecordReader reader0 = new RecordReader(gate0); RecordReader reader1 = new RecordReader(gate1)) {
                assertEquals(expected(0, 0, BEFORE), readUntilEvent(reader0), "subpartition 0 before the event");
                assertEquals(expected(1, 0, BEFORE), readUntilEvent(reader1), "subpartition 1 before the event");

                Await.holdsThroughout(() -> gate0.pollNext().isEmpty(),
                        "nothing behind the blocking event may reach channel 0 before it resumes");

                gate0.resumeConsumption(0);
                assertEquals(expected(0, BEFORE, BEFORE + AFTER), readToEnd(reader0), "subpartition 0 after resume");

                // Subpartition 1 stays blocked although subpartition 0 was resumed: blocking is per subpartition.
                assertTrue(gate1.pollNext().isEmpty(), "channel 1 is still blocked");
                gate1.resumeConsumption(0);
                assertEquals(expected(1, BEFORE, BEFORE + AFTER), readToEnd(reader1), "subpartition 1 after resume");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio"})
    void resume_onAChannelThatIsNotBlocked_isIgnored(String link) throws Exception {
        try (Link env = new Link(link)) {
            ResultPartitionWriter writer = env.writer(1);
            InputGate gate = env.gate(writer, 0);
            gate.resumeConsumption(0);
            writer.emitRecord(ByteBuffer.allocate(4).putInt(0, 7), 0);
            writer.finish();
            writer.close();
            gate.resumeConsumption(0);
            try (RecordReader reader = new RecordReader(gate)) {
                assertEquals(List.of(7), readToEnd(reader));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void taskEventToOneChannel_reachesOnlyThatChannelsProducer(String link) throws Exception {
        try (Link env = new Link(link)) {
            ResultPartitionWriter first = env.writer(1);
            ResultPartitionWriter second = env.writer(1);
            AtomicInteger firstEvents = new AtomicInteger();
            AtomicInteger secondPayload = new AtomicInteger(-1);
            first.onTaskEvent(event -> firstEvents.incrementAndGet());
            second.onTaskEvent(event -> secondPayload.set(event.get(event.position())));
            InputGate gate = env.gate(0, first, second);

            gate.sendTaskEvent(1, ByteBuffer.wrap(new byte[] {9}));

            Await.until(() -> secondPayload.get() >= 0, "the second channel's producer receives the task event");
            assertEquals(9, secondPayload.get());
            assertEquals(0, firstEvents.get(), "the other channel's producer gets nothing");
            first.finish();
            second.finish();
            first.close();
            second.close();
            gate.close();
        }
    }

    private static List<Integer> expected(int subpartition, int from, int to) {
        List<Integer> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            if (i % 2 == subpartition) {
                values.add(i);
            }
        }
        return values;
    }

    private static List<Integer> readUntilEvent(RecordReader reader) throws Exception {
        List<Integer> values = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent()) {
                assertEquals(42, next.data().get(next.data().position()), "the event's payload");
                return values;
            }
            values.add(next.data().getInt(next.data().position()));
        }
        throw new AssertionError("the gate ended before the blocking event; read " + values);
    }

    private static List<Integer> readToEnd(RecordReader reader) throws Exception {
        List<Integer> values = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            assertFalse(next.isEvent(), "no second event");
            values.add(next.data().getInt(next.data().position()));
        }
        assertNull(reader.next());
        return values;
    }

    /** A producer and a consumer environment joined by an in-process channel or a transport. */
    private static final class Link implements AutoCloseable {

        private final NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
        private final ShuffleMaster master;
        private final ShuffleEnvironment producer;
        private final ShuffleEnvironment consumer;

        Link(String link) throws Exception {
            ShuffleConfig config = ShuffleConfig.empty()
                    .with(ShuffleOptions.MEMORY_TOTAL, 2L << 20)
                    .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4096L)
                    .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofMillis(1))
                    .with(ShuffleOptions.NETTY_TRANSPORT, link.equals("in-process") ? "local" : link)
                    .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
                    .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1);
            master = factory.createShuffleMaster(config);
            producer = factory.createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId("p")));
            if (link.equals("in-process")) {
                consumer = producer;
            } else {
                consumer = factory.createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId("c")));
                consumer.start();
            }
            producer.start();
        }

        ResultPartitionWriter writer(int subpartitions) throws Exception {
            ResultPartitionId id = ResultPartitionId.random();
            ShuffleDescriptor sd = descriptor(id, subpartitions);
            ResultPartitionWriter writer = producer.createResultPartitionWriters("producer-" + id,
                    List.of(new ResultPartitionDeploymentDescriptor(sd, PartitionType.PIPELINED_BOUNDED,
                            subpartitions))).get(0);
            writer.setup();
            return writer;
        }

        InputGate gate(ResultPartitionWriter writer, int subpartition) throws Exception {
            return gate(subpartition, writer);
        }

        InputGate gate(int subpartition, ResultPartitionWriter... writers) throws Exception {
            List<ShuffleDescriptor> channels = new ArrayList<>();
            for (ResultPartitionWriter writer : writers) {
                channels.add(descriptor(writer.partitionId(), writer.numberOfSubpartitions()));
            }
            InputGate gate = consumer.createInputGates("consumer-" + subpartition,
                    List.of(new InputGateDeploymentDescriptor(subpartition, channels))).get(0);
            gate.setup();
            return gate;
        }

        private ShuffleDescriptor descriptor(ResultPartitionId id, int subpartitions) {
            return master.registerPartitionWithProducer(
                    new PartitionDescriptor(id, PartitionType.PIPELINED_BOUNDED, subpartitions, 0),
                    new ProducerDescriptor(producer.resourceId(), producer.dataAddress())).join();
        }

        @Override
        public void close() {
            master.close();
            consumer.close();
            producer.close();
            MemoryAssertions.assertAllSegmentsReturned(producer);
            MemoryAssertions.assertAllSegmentsReturned(consumer);
        }
    }
}
