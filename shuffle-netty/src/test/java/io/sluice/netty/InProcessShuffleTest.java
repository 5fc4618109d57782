package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InputGate;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.GateReads;
import io.sluice.netty.testing.TestRecords;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Producers and consumers of one environment, through the public API only: the in-process shuffle's backpressure,
 * failures, early consumers, late producers and flushing.
 */
@Timeout(60)
class InProcessShuffleTest {

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    /** Emits {@code records} one-buffer records into subpartition 0 on another thread, then finishes. */
    private static BackgroundTask<Void> produce(ResultPartitionWriter writer, int records) {
        return BackgroundTask.start("producer", () -> {
            for (int i = 0; i < records; i++) {
                writer.emitRecord(TestRecords.record(0, i, EnvironmentFixture.ONE_BUFFER_RECORD), 0);
            }
            writer.finish();
        });
    }

    @Test
    void stoppedConsumer_blocksTheProducer_withinTheBudget_andReadingReleasesIt() throws Exception {
        int segments = 24;
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(segments));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        int records = 200;

        BackgroundTask<Void> producer = produce(writer, records);
        Await.blocked(producer.thread());

        assertFalse(producer.isDone(), "nobody reads: the producer waits");
        assertFalse(writer.availableFuture().isDone());
        int used = environment.metrics().totalSegments() - environment.metrics().availableSegments();
        assertTrue(used <= segments, "used " + used + " of " + segments);
        assertTrue(used <= 2 * 1 + 8 + 1, "the partition's pool max (1 x 2 + 8) plus one idle segment: " + used);
        try (RecordReader reader = new RecordReader(gate)) {
            for (int i = 0; i < records; i++) {
                assertArrayEquals(TestRecords.recordBytes(0, i, EnvironmentFixture.ONE_BUFFER_RECORD),
                        TestRecords.bytesOf(reader.next().data()), "record " + i);
            }
            assertNull(reader.next());
        }
        producer.await();
    }

    @Test
    void producerFailure_reachesTheConsumer_withTheCausesMessage() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        CompletableFuture<Throwable> seen = GateReads.untilFailure(gate);
        writer.emitRecord(TestRecords.record(0, 0, 10), 0);
        writer.flushAll();

        writer.fail(new IllegalStateException("user function threw"));

        Throwable failure = seen.get(10, TimeUnit.SECONDS);
        assertTrue(failure instanceof ProducerFailedException, String.valueOf(failure));
        assertTrue(failure.getMessage().contains("user function threw"), failure.getMessage());
        gate.close();
    }

    @Test
    void consumerClosingItsGateEarly_releasesTheSubpartition_andTheProducerRunsToTheEnd() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        try (RecordReader reader = new RecordReader(gate)) {
            writer.emitRecord(TestRecords.record(0, 0, 10), 0);
            writer.flushAll();
            assertArrayEquals(TestRecords.recordBytes(0, 0, 10), TestRecords.bytesOf(reader.next().data()));
        }
        BackgroundTask<Void> producer = produce(writer, 500);

        producer.await();
        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty(),
                "its only consumer left: the finished partition is released");
    }

    @Test
    void gateSetUpBeforeItsProducer_readsEverythingOnceTheProducerAppears() throws Exception {
        ShuffleConfig patient = EnvironmentFixture.config(16)
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofSeconds(10));
        ShuffleEnvironment environment = environments.localEnvironment(patient);
        ResultPartitionId id = ResultPartitionId.random();
        ResultPartitionWriter writer = environments.writer(environment, id, 1);
        InputGate gate = environments.gate(environment, 0, environments.descriptor(environment, id, 1));
        gate.setup();

        writer.setup();
        for (int i = 0; i < 20; i++) {
            writer.emitRecord(TestRecords.record(0, i, 1000), 0);
        }
        writer.finish();

        try (RecordReader reader = new RecordReader(gate)) {
            for (int i = 0; i < 20; i++) {
                RecordOrEvent next = reader.next();
                assertArrayEquals(TestRecords.recordBytes(0, i, 1000), TestRecords.bytesOf(next.data()));
            }
            assertNull(reader.next());
        }
    }

    @Test
    void producerThatNeverAppears_failsTheGateWithPartitionNotFound_afterTheBackoff() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionId missing = ResultPartitionId.random();
        ShuffleDescriptor descriptor = environments.descriptor(environment, missing, 1);
        InputGate gate = environments.gate(environment, 0, descriptor);
        gate.setup();

        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class, gate::getNext);

        assertEquals(missing, notFound.partitionId());
        gate.close();
    }

    @Test
    void zeroFlushInterval_makesASingleRecordReadable_withoutAnyFlush() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ZERO));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);

        writer.emitRecord(TestRecords.record(0, 0, 12), 0);

        assertTrue(gate.availableFuture().isDone(), "readable as soon as emitRecord returns");
        try (RecordReader reader = new RecordReader(gate)) {
            assertArrayEquals(TestRecords.recordBytes(0, 0, 12), TestRecords.bytesOf(reader.next().data()));
        }
        writer.close();
    }

    @Test
    void shortFlushInterval_makesASingleRecordReadableEventually() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofMillis(50)));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);

        writer.emitRecord(TestRecords.record(0, 0, 12), 0);

        gate.availableFuture().get(10, TimeUnit.SECONDS);
        try (RecordReader reader = new RecordReader(gate)) {
            assertArrayEquals(TestRecords.recordBytes(0, 0, 12), TestRecords.bytesOf(reader.next().data()));
        }
        writer.close();
    }
}
