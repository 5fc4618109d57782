package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InputGate;
import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.GateReads;
import io.sluice.netty.testing.TestRecords;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The environment: memory budgeting, configuration checks, creation of writers and gates, local release, and a
 * close that leaves nothing behind (docs/behaviours.md section 14, ENV-*, RP-7).
 */
@Timeout(60)
class NettyShuffleEnvironmentTest {

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    /** Four 2-subpartition writers and four 2-channel gates: each subpartition is read by exactly one gate. */
    private record Task(List<ResultPartitionWriter> writers, List<InputGate> gates) {
    }

    private Task fourByFourTask(ShuffleEnvironment environment) {
        List<ResultPartitionWriter> writers = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            writers.add(environments.writer(environment, ResultPartitionId.random(), 2));
        }
        List<InputGate> gates = new ArrayList<>();
        for (int g = 0; g < 4; g++) {
            ResultPartitionWriter first = writers.get(g / 2 * 2);
            ResultPartitionWriter second = writers.get(g / 2 * 2 + 1);
            gates.add(environments.gate(environment, g % 2,
                    environments.descriptor(environment, first.partitionId(), 2),
                    environments.descriptor(environment, second.partitionId(), 2)));
        }
        return new Task(writers, gates);
    }

    // ENV-1, RP-7
    @Test
    void exactMinimumOfMemory_isEnough_forFourPartitionsAndFourGates() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(4 * (2 + 1)));
        Task task = fourByFourTask(environment);

        for (ResultPartitionWriter writer : task.writers()) {
            writer.setup();
            ResultPartition partition = (ResultPartition) writer;
            assertEquals(3, partition.bufferPool().getNumberOfRequiredMemorySegments(), "#subpartitions + 1");
            assertEquals(2 * 2 + 8, partition.bufferPool().getMaxNumberOfMemorySegments(),
                    "#subpartitions x buffers-per-channel + floating-buffers-per-gate");
        }
        for (InputGate gate : task.gates()) {
            gate.setup();
            assertThrows(IllegalStateException.class, gate::setup, "a gate sets up its channels once");
        }
        for (ResultPartitionWriter writer : task.writers()) {
            writer.broadcastRecord(TestRecords.record(0, 1, 100));
            writer.finish();
        }
        for (InputGate gate : task.gates()) {
            try (RecordReader reader = new RecordReader(gate)) {
                assertArrayEquals(TestRecords.recordBytes(0, 1, 100), TestRecords.bytesOf(reader.next().data()));
                assertArrayEquals(TestRecords.recordBytes(0, 1, 100), TestRecords.bytesOf(reader.next().data()));
                assertNull(reader.next());
            }
        }
        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty(), "read to the end: released");
    }

    // ENV-2 [core]
    @Test
    void oneBufferLess_failsSetupAtOnce_withTheFormulaAndTheOptionToRaise() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(4 * (2 + 1) - 1));
        Task task = fourByFourTask(environment);
        for (int p = 0; p < 3; p++) {
            task.writers().get(p).setup();
        }
        ResultPartitionWriter fourth = task.writers().get(3);

        InsufficientBuffersException error = assertThrows(InsufficientBuffersException.class, fourth::setup);

        String message = error.getMessage();
        assertTrue(message.contains("Insufficient number of network buffers"), message);
        assertTrue(message.contains("3 buffers = 2 subpartitions + 1"), message);
        assertTrue(message.contains("has only 2 free of 11 segments"), "free = not reserved by a pool: " + message);
        assertTrue(message.contains("raise shuffle.memory.total"), message);
        assertTrue(message.contains(fourth.partitionId().toString()), message);
        assertFalse(environment.partitionsOccupyingLocalResources().contains(fourth.partitionId()),
                "a failed setup registers nothing");
        assertEquals(3, environment.partitionsOccupyingLocalResources().size());
    }

    // Config validation: every problem in one message, with the closest known key
    @Test
    void invalidConfig_listsEveryProblem_withTheClosestKnownKey() {
        ShuffleConfig config = EnvironmentFixture.config(16)
                .with("shuffle.memroy.total", "1m")
                .with(ShuffleOptions.BUFFERS_PER_CHANNEL.key(), "0")
                .with("engine.own.key", "ignored");

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> environments.localEnvironment(config));

        String message = error.getMessage();
        assertTrue(message.contains("(2 problems)"), message);
        assertTrue(message.contains("shuffle.memroy.total: unknown option; did you mean shuffle.memory.total?"),
                message);
        assertTrue(message.contains("shuffle.buffers-per-channel: invalid value '0'; must be between 1 and 65536"), message);
        assertFalse(message.contains("engine.own.key"), "keys outside shuffle. belong to the engine");
    }

    @Test
    void networkMemorySmallerThanOneSegment_isRejected() {
        ShuffleConfig config = EnvironmentFixture.config(1).with(ShuffleOptions.MEMORY_TOTAL, 1000L);

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> environments.localEnvironment(config));

        assertTrue(error.getMessage().contains(ShuffleOptions.MEMORY_TOTAL.key()), error.getMessage());
    }

    // A remote producer with localCommunicationOnly stays an error that says so
    @Test
    void remoteProducer_inALocalOnlyEnvironment_failsSetup_sayingWhy_andReservesNothing() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(8));
        ShuffleDescriptor remote = environments.descriptor(new ResourceId("elsewhere"), ResultPartitionId.random(), 1);
        InputGate gate = environments.gate(environment, 0, remote);

        ShuffleException error = assertThrows(ShuffleException.class, gate::setup);

        assertTrue(error.getMessage().contains("localCommunicationOnly"), error.getMessage());
        assertTrue(error.getMessage().contains("elsewhere"), error.getMessage());
        assertEquals(environment.metrics().totalSegments(), environment.metrics().availableSegments());
        gate.close();
    }

    @Test
    void start_withLocalCommunicationOnly_returnsMinusOne_andRunsOnce() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(8));

        assertEquals(-1, environment.start());
        assertThrows(IllegalStateException.class, environment::start);
        assertEquals(0, environment.metrics().openConnections(), "in-process channels use no connection");
    }

    @Test
    void metrics_countTheSegmentsOfTheBudget_andWhatIsInUse() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);

        writer.emitRecord(TestRecords.record(0, 0, EnvironmentFixture.ONE_BUFFER_RECORD), 0);
        writer.emitRecord(TestRecords.record(0, 1, EnvironmentFixture.ONE_BUFFER_RECORD), 0);

        ShuffleMetrics metrics = environment.metrics();
        assertEquals(16, metrics.totalSegments(), "memory.total / segment-size");
        assertTrue(metrics.availableSegments() <= 14, "two buffers are queued: " + metrics);
        writer.close();
        assertEquals(16, environment.metrics().availableSegments(), "close without finish releases at once");
    }

    @Test
    void releasePartitionsLocally_failsItsConsumer_andFreesItsMemory() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        writer.emitRecord(TestRecords.record(0, 0, EnvironmentFixture.ONE_BUFFER_RECORD), 0);
        assertEquals(List.of(writer.partitionId()), List.copyOf(environment.partitionsOccupyingLocalResources()));

        environment.releasePartitionsLocally(List.of(writer.partitionId(), ResultPartitionId.random()));

        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty());
        assertThrows(ProducerFailedException.class, gate::getNext);
        assertEquals(16, environment.metrics().availableSegments());
        ShuffleException late = assertThrows(ShuffleException.class,
                () -> writer.emitRecord(TestRecords.record(0, 1, 10), 0));
        assertTrue(late.getMessage().contains("releasePartitionsLocally"), late.getMessage());
        gate.close();
    }

    // H-1 through the API: close releases writers and gates in any state, wakes a blocked consumer, and is idempotent
    @Test
    void close_releasesEverything_wakesABlockedConsumer_andIsIdempotent() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(32));
        ResultPartitionWriter unfinished = environments.setUpWriter(environment, 1);
        ResultPartitionWriter finished = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, unfinished);
        unfinished.emitRecord(TestRecords.record(0, 0, 3 * EnvironmentFixture.ONE_BUFFER_RECORD), 0);
        finished.emitRecord(TestRecords.record(0, 1, EnvironmentFixture.ONE_BUFFER_RECORD), 0);
        finished.finish();
        CompletableFuture<Throwable> consumer = GateReads.untilFailure(gate);

        environment.close();
        environment.close();

        Throwable woken = consumer.get(10, TimeUnit.SECONDS);
        assertTrue(woken instanceof IllegalStateException, String.valueOf(woken));
        assertEquals(environment.metrics().totalSegments(), environment.metrics().availableSegments());
        assertEquals(32, environment.metrics().totalSegments(), "metrics still answer after close");
        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty());
        assertThrows(IllegalStateException.class, () -> environments.writer(environment, ResultPartitionId.random(), 1));
    }

    // RP-2: a writer of a closed environment refuses data instead of dropping it
    @Test
    void writerOfAClosedEnvironment_throwsShuffleExceptionSayingTheEnvironmentWasClosed() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);

        environment.close();

        String closed = "shuffle environment " + environment.resourceId() + " was closed";
        for (org.junit.jupiter.api.function.Executable call : List.<org.junit.jupiter.api.function.Executable>of(
                () -> writer.emitRecord(TestRecords.record(0, 2, 10), 0),
                () -> writer.broadcastRecord(TestRecords.record(0, 2, 10)),
                () -> writer.broadcastEvent(TestRecords.record(0, 2, 10), false),
                writer::finish)) {
            ShuffleException error = assertThrows(ShuffleException.class, call);
            assertTrue(error.getMessage().contains(closed), error.getMessage());
            assertTrue(error.getMessage().contains(writer.partitionId().toString()), error.getMessage());
        }
    }

    // RP-2: the producer writes without a lock, so the environment's close (another thread) leaves the
    // buffers under construction to it; its ShuffleException and its close() return them, and every segment is back
    @Test
    void closeWhileAProducerThreadEmits_producerGetsShuffleException_thenEverySegmentIsBack() throws Exception {
        Random random = new Random(1013);
        for (int round = 0; round < 20; round++) {
            ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(64));
            ResultPartitionWriter writer = environments.setUpWriter(environment, 2);
            BackgroundTask<ShuffleException> producer = BackgroundTask.start("producer-" + round, () -> {
                try {
                    for (int i = 0; ; i++) {
                        writer.emitRecord(TestRecords.record(i & 1, i, 8), i & 1);
                    }
                } catch (ShuffleException expected) {
                    return expected;
                } finally {
                    writer.close(); // as an engine's task does when it stops
                }
            });
            // Seeded jitter, not a wait: it moves the close across the producer's emits; every assertion below holds
            // wherever the close lands (before the first emit too: that emit throws the same ShuffleException).
            Thread.sleep(0, random.nextInt(999_999));

            environment.close();

            ShuffleException error = producer.await();
            assertTrue(error.getMessage().contains("shuffle environment " + environment.resourceId()
                    + " was closed"), error.getMessage());
            ShuffleMetrics metrics = environment.metrics();
            assertEquals(metrics.totalSegments(), metrics.availableSegments(), "round " + round + ": " + metrics);
        }
    }

    // A writer set up while (or after) its environment closes is refused with a ShuffleException,
    // reserves nothing and stays unregistered
    @Test
    void writerSetUpAfterItsEnvironmentClosed_failsWithShuffleException_andRegistersNothing() throws Exception {
        ShuffleEnvironment environment = environments.environment(EnvironmentFixture.config(16), false);
        environment.start();
        ResultPartitionWriter late = environments.writer(environment, ResultPartitionId.random(), 1);

        environment.close();

        ShuffleException error = assertThrows(ShuffleException.class, late::setup);
        assertTrue(error.getMessage().contains("closed"), error.getMessage());
        assertTrue(error.getMessage().contains(late.partitionId().toString()), error.getMessage());
        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty());
        assertEquals(environment.metrics().totalSegments(), environment.metrics().availableSegments());
    }

    @Test
    void descriptorOfAnotherShuffleService_isRejected_namingIt() {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(8));
        ResultPartitionId id = ResultPartitionId.random();
        ShuffleDescriptor foreign = () -> id;

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> environment.createResultPartitionWriters("task", List.of(
                        new ResultPartitionDeploymentDescriptor(foreign, PartitionType.PIPELINED_BOUNDED, 1))));

        assertTrue(error.getMessage().contains(id.toString()), error.getMessage());
        assertTrue(error.getMessage().contains("not made by the Netty shuffle master"), error.getMessage());
    }

    // docs/contract.md: one flush scheduler per environment, not a thread per partition
    @Test
    void manyPartitions_shareOneTimerThread() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(128)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, java.time.Duration.ofMillis(1)));
        for (int i = 0; i < 20; i++) {
            environments.setUpWriter(environment, 2);
        }
        String timerName = "sluice-timer-" + environment.resourceId().value();

        Await.until(() -> countThreads(timerName) == 1, "the flushes of 20 partitions run on one timer thread");
    }

    private static long countThreads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().equals(name)).count();
    }
}
