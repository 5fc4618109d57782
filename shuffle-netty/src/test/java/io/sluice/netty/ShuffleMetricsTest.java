package io.sluice.netty;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.ConnectionMetrics;
import io.sluice.api.GateMetrics;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.WriterMetrics;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.MemoryAssertions;
import io.sluice.netty.testing.PartitionBuilder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The figures writers, gates, connections and environments report through the API, after real shuffles. */
class ShuffleMetricsTest {

    @Test
    void localShuffle_countsRecordsBytesBuffersAndBacklog_asSentAndRead() throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(64));
            environment.start();
            ResultPartitionWriter writer = fixture.setUpWriter(environment, 2);
            ByteBuffer record = ByteBuffer.allocate(EnvironmentFixture.ONE_BUFFER_RECORD);
            for (int i = 0; i < 3; i++) {
                writer.emitRecord(record, 0);
            }
            writer.emitRecord(record, 1);
            writer.emitRecord(ByteBuffer.allocate(10), 1);
            writer.flushAll();

            WriterMetrics beforeReading = writer.metrics();
            assertEquals(writer.partitionId(), beforeReading.partitionId());
            assertEquals(5, beforeReading.recordsOut());
            assertEquals(4, beforeReading.buffersOut(), "four full buffers; the small record's is not finished");
            assertEquals(4 * EnvironmentFixture.SEGMENT_SIZE, beforeReading.bytesOut());
            assertEquals(List.of(3, 2), beforeReading.backlogPerSubpartition(), "flushed: the open buffer counts");
            assertEquals(5, beforeReading.totalBacklog());
            assertEquals(5, beforeReading.outputBuffersInUse());
            assertTrue(beforeReading.outputPoolSize() >= 5, "pool size " + beforeReading.outputPoolSize());
            assertEquals(5.0 / beforeReading.outputPoolSize(), beforeReading.outputPoolUsage(), 1e-9);
            assertEquals(0, beforeReading.backpressuredNanos(), "the pool never ran dry");

            InputGate gate = fixture.setUpGate(environment, 0, writer);
            long bytesRead = 0;
            for (int i = 0; i < 3; i++) {
                BufferOrEvent next = gate.getNext().orElseThrow();
                bytesRead += next.data().remaining();
                next.recycle();
            }
            GateMetrics gateMetrics = gate.metrics();
            assertEquals(3 * EnvironmentFixture.SEGMENT_SIZE, bytesRead);
            assertEquals(bytesRead, gateMetrics.bytesIn());
            assertEquals(3, gateMetrics.buffersIn());
            assertEquals(0, gateMetrics.queuedBuffers());
            assertEquals(1, gateMetrics.numberOfChannels());
            assertEquals(0, gateMetrics.exclusiveBuffers(), "local channels own no buffers");
            assertEquals(0, gateMetrics.inputPoolUsage());
            assertEquals(List.of(0, 2), writer.metrics().backlogPerSubpartition());

            ShuffleMetrics environmentMetrics = environment.metrics();
            assertEquals(1, environmentMetrics.writers().size());
            assertEquals(1, environmentMetrics.gates().size());
            assertEquals(5, environmentMetrics.recordsOut());
            assertEquals(2, environmentMetrics.outputBacklog());
            assertEquals(List.of(), environment.connectionMetrics(), "no transport");

            gate.close();
            writer.close();
            assertEquals(List.of(), environment.metrics().gates(), "a closed gate leaves the list");
            assertEquals(List.of(), environment.metrics().writers(), "a released writer leaves the list");
            assertEquals(5, writer.metrics().recordsOut(), "a closed writer still reports its counts");
        }
    }

    @Test
    void blockedProducer_reportsBackpressure_untilTheConsumerReads_andAWaitingConsumerReportsItsWait()
            throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(16));
            environment.start();
            ResultPartitionWriter writer = fixture.setUpWriter(environment, 1);
            InputGate gate = fixture.setUpGate(environment, 0, writer);

            BackgroundTask<Void> waitingConsumer = BackgroundTask.start("waiting-consumer", () -> {
                Optional<BufferOrEvent> first = gate.getNext();
                first.orElseThrow().recycle();
            });
            Await.until(() -> gate.metrics().waitingForDataNanos() > 0, "the consumer's wait shows while it waits");

            int records = 200;
            BackgroundTask<Void> producer = BackgroundTask.start("blocked-producer", () -> {
                ByteBuffer record = ByteBuffer.allocate(EnvironmentFixture.ONE_BUFFER_RECORD);
                for (int i = 0; i < records; i++) {
                    writer.emitRecord(record, 0);
                }
                writer.finish();
            });
            waitingConsumer.await();
            Await.blocked(producer.thread());
            Await.until(() -> writer.metrics().backpressuredNanos() > 0, "the blocked wait shows while it lasts");
            WriterMetrics earlier = writer.metrics();
            Await.until(() -> writer.metrics().backpressuredNanos() > earlier.backpressuredNanos(),
                    "the counter grows while the producer stays blocked");
            WriterMetrics later = writer.metrics();
            double rate = later.backPressuredTimeMsPerSecond(earlier);
            assertTrue(rate > 0 && rate <= 1000, "blocked ms/s in (0, 1000]: " + rate);
            assertTrue(later.outputPoolUsage() > 0 && later.outputPoolUsage() <= 1, "usage " + later.outputPoolUsage());
            assertTrue(later.totalBacklog() > 0, "the blocked producer's buffers wait for the consumer");

            long buffers = 1 + readToEnd(gate);
            producer.await();
            assertEquals(records, buffers);
            assertEquals(records, gate.metrics().buffersIn());
            assertEquals(writer.metrics().bytesOut(), gate.metrics().bytesIn());
            gate.close();
            writer.close();
        }
    }

    @Test
    void blockingPartition_countsRecordsAndBytes_hasNoBacklog_andItsReaderTakesWhatItWrote() throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(64));
            environment.start();
            EnvironmentFixture.BlockingWriter blocking = fixture.blockingWriter(environment, 2);
            ResultPartitionWriter writer = blocking.writer();
            ShuffleDescriptor descriptor = blocking.descriptor();
            writer.setup();
            ByteBuffer record = ByteBuffer.allocate(100);
            int records = 1000;
            for (int i = 0; i < records; i++) {
                writer.emitRecord(record, i % 2);
            }
            writer.broadcastRecord(record);
            writer.finish();
            WriterMetrics written = writer.metrics();
            assertEquals(records + 2, written.recordsOut(), "a broadcast counts once per subpartition");
            assertEquals((records + 1) * 104L, written.bytesOut(), "the broadcast record is stored once");
            assertEquals(List.of(), written.backlogPerSubpartition(), "the data is on disk");
            assertTrue(written.outputPoolUsage() >= 0 && written.outputPoolUsage() <= 1);

            long bytesIn = 0;
            for (int subpartition = 0; subpartition < 2; subpartition++) {
                InputGate gate = fixture.gate(environment, subpartition, descriptor);
                gate.setup();
                readToEnd(gate);
                bytesIn += gate.metrics().bytesIn();
                gate.close();
            }
            assertEquals((records + 2) * 104L, bytesIn, "each subpartition reads the broadcast record");
            writer.close();
        }
    }

    @Test
    void remoteShuffle_connectionsNameTheirPeer_creditRunsOutWhenTheConsumerStops_andBytesMatch() throws Exception {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.NETTY_TRANSPORT, "nio")
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, EnvironmentFixture.SEGMENT_SIZE)
                .with(ShuffleOptions.MEMORY_TOTAL, 256 * EnvironmentFixture.SEGMENT_SIZE)
                .with(ShuffleOptions.BUFFERS_PER_CHANNEL, 2)
                .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, 4)
                // Only full buffers travel: each record is exactly one buffer, never a flushed part of one.
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, PartitionBuilder.NO_AUTOMATIC_FLUSH);
        NettyShuffleServiceFactory factory = new NettyShuffleServiceFactory();
        ShuffleMaster master = factory.createShuffleMaster(config);
        ShuffleEnvironment producerEnv = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new io.sluice.api.ResourceId("metrics-producer")));
        ShuffleEnvironment consumerEnv = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new io.sluice.api.ResourceId("metrics-consumer")));
        try {
            producerEnv.start();
            consumerEnv.start();
            ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED, 1, 0),
                    new ProducerDescriptor(producerEnv.resourceId(), producerEnv.dataAddress())).get();
            ResultPartitionWriter writer = producerEnv.createResultPartitionWriters("producer", List.of(
                    new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, 1))).get(0);
            InputGate gate = consumerEnv.createInputGates("consumer",
                    List.of(new InputGateDeploymentDescriptor(0, List.of(descriptor)))).get(0);
            writer.setup();
            gate.setup();

            int records = 300;
            BackgroundTask<Void> producer = BackgroundTask.start("remote-producer", () -> {
                ByteBuffer record = ByteBuffer.allocate(EnvironmentFixture.ONE_BUFFER_RECORD);
                for (int i = 0; i < records; i++) {
                    writer.emitRecord(record, 0);
                }
                writer.finish();
            });
            // The consumer does not read: its buffers fill, the credit runs out, the producer blocks.
            Await.until(() -> {
                GateMetrics stalled = gate.metrics();
                // Queued too: a buffer counts as in use from the moment the decoder takes it, before it is queued.
                return stalled.exclusiveBuffersInUse() == 2 && stalled.floatingBuffersInUse() == 4
                        && stalled.queuedBuffers() == 6;
            }, "every input buffer of the gate holds data and waits for the consumer");
            Await.until(() -> single(consumerEnv.connectionMetrics()).creditOutstanding() == 0
                    && single(producerEnv.connectionMetrics()).creditOutstanding() == 0, "no credit left");
            Await.blocked(producer.thread());
            Await.until(() -> writer.metrics().backpressuredNanos() > 0, "the producer is backpressured");
            GateMetrics stalled = gate.metrics();
            assertEquals(2, stalled.exclusiveBuffers(), "buffers-per-channel x 1 remote channel");
            assertEquals(4, stalled.floatingBuffers());
            assertEquals(1.0, stalled.inputPoolUsage());
            assertEquals(6, stalled.queuedBuffers(), "every buffer waits for the consumer");

            ConnectionMetrics outgoing = single(consumerEnv.connectionMetrics());
            assertEquals(ConnectionMetrics.Direction.OUTGOING, outgoing.direction());
            assertEquals(producerEnv.dataAddress(), outgoing.remoteAddress());
            ConnectionMetrics incoming = single(producerEnv.connectionMetrics());
            assertEquals(ConnectionMetrics.Direction.INCOMING, incoming.direction());
            assertEquals(ConnectionMetrics.State.ACTIVE, incoming.state());
            assertEquals(List.of(outgoing.remoteAddress()),
                    consumerEnv.metrics().connections().stream().map(ConnectionMetrics::remoteAddress).toList());

            // Stalled, nothing is in flight: both ends count the same bytes each way, and the six buffers held
            // arrived with their frame headers.
            Await.until(() -> single(producerEnv.connectionMetrics()).bytesSent()
                    == single(consumerEnv.connectionMetrics()).bytesReceived()
                    && single(producerEnv.connectionMetrics()).bytesReceived()
                    == single(consumerEnv.connectionMetrics()).bytesSent(), "both ends count the same bytes each way");
            ConnectionMetrics settled = single(consumerEnv.connectionMetrics());
            assertTrue(settled.bytesReceived() > 6 * EnvironmentFixture.SEGMENT_SIZE, "six buffers and headers: "
                    + settled.bytesReceived());
            assertTrue(settled.bytesSent() > 0, "the request and credit went the other way");

            int buffers = readToEnd(gate);
            producer.await();
            assertEquals(records, buffers);
            assertEquals(records * EnvironmentFixture.SEGMENT_SIZE, gate.metrics().bytesIn());
            assertEquals(writer.metrics().bytesOut(), gate.metrics().bytesIn());

            gate.close();
            writer.close();
        } finally {
            consumerEnv.close();
            producerEnv.close();
            master.close();
        }
        MemoryAssertions.assertAllSegmentsReturned(producerEnv);
        MemoryAssertions.assertAllSegmentsReturned(consumerEnv);
        assertEquals(List.of(), producerEnv.connectionMetrics(), "closed: no connection left");
    }

    /** Reads {@code gate} to its end, recycling what it takes; returns the data buffers taken. */
    private static int readToEnd(InputGate gate) throws Exception {
        int buffers = 0;
        while (!gate.isFinished()) {
            Optional<BufferOrEvent> next = gate.getNext();
            if (next.isPresent()) {
                buffers += next.get().isEvent() ? 0 : 1;
                next.get().recycle();
            }
        }
        return buffers;
    }

    private static ConnectionMetrics single(List<ConnectionMetrics> connections) {
        assertEquals(1, connections.size(), "connections: " + connections);
        return connections.get(0);
    }
}
