package io.sluice.tests;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InputGate;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.api.UnionInputGate;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public method of the producer and consumer API, driven into its failure modes (closed, released, failed
 * producer, closed environment, interrupted while waiting): what reaches the caller is the {@link ShuffleException}
 * family (or the {@link IOException} or {@link InterruptedException} the method declares), never an unchecked
 * exception, with the cause attached where there is one; an interrupted thread keeps its interrupt status
 * (docs/contract.md section 6, "Which exception each method throws").
 */
@Timeout(60)
class ApiFailureTypesTest {

    private static final ByteBuffer RECORD = ByteBuffer.wrap(new byte[] {1, 2, 3});
    private static final IOException PRODUCER_CAUSE = new IOException("disk full");

    /** A call of the API that may throw anything. */
    @FunctionalInterface
    interface Call<T> {
        void run(T target) throws Exception;
    }

    /** Brings a set-up writer, which emitted a record, into a state. */
    @FunctionalInterface
    interface WriterState {
        void apply(ShuffleFixture shuffle, ResultPartitionWriter writer) throws Exception;
    }

    static Stream<Arguments> writerStates() {
        return Stream.of(
                Arguments.of("closed before finish", (WriterState) (shuffle, writer) -> writer.close()),
                Arguments.of("released locally", (WriterState) (shuffle, writer) -> shuffle.producerEnvironment()
                        .releasePartitionsLocally(List.of(writer.partitionId()))),
                Arguments.of("failed by its producer", (WriterState) (shuffle, writer) -> writer.fail(PRODUCER_CAUSE)),
                Arguments.of("in a closed environment",
                        (WriterState) (shuffle, writer) -> shuffle.producerEnvironment().close()));
    }

    static Stream<Arguments> writerCallsThatFail() {
        return Stream.of(
                Arguments.of("emitRecord", (Call<ResultPartitionWriter>) w -> w.emitRecord(RECORD.duplicate(), 0)),
                Arguments.of("broadcastRecord", (Call<ResultPartitionWriter>) w -> w.broadcastRecord(RECORD.duplicate())),
                Arguments.of("broadcastEvent", (Call<ResultPartitionWriter>) w -> w.broadcastEvent(RECORD.duplicate(),
                        false)),
                Arguments.of("broadcastEvent (priority)",
                        (Call<ResultPartitionWriter>) w -> w.broadcastEvent(RECORD.duplicate(), true)),
                Arguments.of("broadcastBlockingEvent",
                        (Call<ResultPartitionWriter>) w -> w.broadcastBlockingEvent(RECORD.duplicate())),
                Arguments.of("finish", (Call<ResultPartitionWriter>) ResultPartitionWriter::finish));
    }

    static Stream<Arguments> writerCallsThatDoNotFail() {
        return Stream.of(
                Arguments.of("flush", (Call<ResultPartitionWriter>) w -> w.flush(0)),
                Arguments.of("flushAll", (Call<ResultPartitionWriter>) ResultPartitionWriter::flushAll),
                Arguments.of("availableFuture", (Call<ResultPartitionWriter>) ResultPartitionWriter::availableFuture),
                Arguments.of("wakeUpFuture", (Call<ResultPartitionWriter>) ResultPartitionWriter::wakeUpFuture),
                Arguments.of("onTaskEvent", (Call<ResultPartitionWriter>) w -> w.onTaskEvent(event -> { })),
                Arguments.of("bytesOut", (Call<ResultPartitionWriter>) ResultPartitionWriter::bytesOut),
                Arguments.of("setMaxOverdraftBuffers", (Call<ResultPartitionWriter>) w -> w.setMaxOverdraftBuffers(2)),
                Arguments.of("fail", (Call<ResultPartitionWriter>) w -> w.fail(new IOException("again"))),
                Arguments.of("close", (Call<ResultPartitionWriter>) ResultPartitionWriter::close));
    }

    static Stream<Arguments> writerTable(Stream<Arguments> calls) {
        List<Arguments> states = writerStates().toList();
        return calls.flatMap(call -> states.stream().map(state -> Arguments.of(state.get()[0], state.get()[1],
                call.get()[0], call.get()[1])));
    }

    static Stream<Arguments> writerFailures() {
        return writerTable(writerCallsThatFail());
    }

    static Stream<Arguments> writerNonFailures() {
        return writerTable(writerCallsThatDoNotFail());
    }

    @ParameterizedTest(name = "writer {0}: {2}")
    @MethodSource("writerFailures")
    void writerCalls_throwShuffleException_namingThePartition_withTheProducersCause(String state, WriterState toState,
            String method, Call<ResultPartitionWriter> call) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            writer.emitRecord(RECORD.duplicate(), 0);
            toState.apply(shuffle, writer);

            ShuffleException failure = assertThrows(ShuffleException.class, () -> call.run(writer),
                    method + " of a writer " + state);

            assertTrue(failure.getMessage().contains(partition.id().toString()), failure.getMessage());
            if (state.equals("failed by its producer")) {
                assertTrue(causes(failure, PRODUCER_CAUSE), "the producer's cause is attached: " + failure);
            }
        }
    }

    @ParameterizedTest(name = "writer {0}: {2}")
    @MethodSource("writerNonFailures")
    void writerCalls_thatNeedNoPartition_doNotThrow(String state, WriterState toState, String method,
            Call<ResultPartitionWriter> call) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            ResultPartitionWriter writer = shuffle.createWriter("producer", shuffle.registerPartition(1));
            writer.setup();
            writer.emitRecord(RECORD.duplicate(), 0);
            toState.apply(shuffle, writer);

            assertDoesNotThrow(() -> call.run(writer), method + " of a writer " + state);
        }
    }

    /** Brings a set-up gate over a partition that emitted a record (unfinished) into a state. */
    @FunctionalInterface
    interface GateState {
        void apply(ShuffleFixture shuffle, InputGate gate, ResultPartitionWriter writer) throws Exception;
    }

    static Stream<Arguments> gateStates() {
        return Stream.of(
                Arguments.of("closed", (GateState) (shuffle, gate, writer) -> gate.close()),
                Arguments.of("in a closed environment",
                        (GateState) (shuffle, gate, writer) -> shuffle.consumerEnvironment().close()));
    }

    static Stream<Arguments> gateCalls() {
        return Stream.of(
                Arguments.of("pollNext", (Call<InputGate>) InputGate::pollNext),
                Arguments.of("getNext", (Call<InputGate>) InputGate::getNext),
                Arguments.of("setup", (Call<InputGate>) InputGate::setup),
                Arguments.of("sendTaskEvent", (Call<InputGate>) g -> g.sendTaskEvent(RECORD.duplicate())),
                Arguments.of("sendTaskEvent to a channel", (Call<InputGate>) g -> g.sendTaskEvent(0, RECORD.duplicate())),
                Arguments.of("resumeConsumption", (Call<InputGate>) g -> g.resumeConsumption(0)),
                Arguments.of("a union's pollNext",
                        (Call<InputGate>) g -> new UnionInputGate(List.of(g)).pollNext()),
                Arguments.of("a union's getNext",
                        (Call<InputGate>) g -> new UnionInputGate(List.of(g)).getNext()));
    }

    static Stream<Arguments> gateFailures() {
        List<Arguments> states = gateStates().toList();
        return gateCalls().flatMap(call -> states.stream().map(state -> Arguments.of(state.get()[0],
                state.get()[1], call.get()[0], call.get()[1])));
    }

    @ParameterizedTest(name = "gate {0}: {2}")
    @MethodSource("gateFailures")
    void gateCalls_throwShuffleException(String state, GateState toState, String method, Call<InputGate> call)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            writer.emitRecord(RECORD.duplicate(), 0);
            writer.flushAll();
            InputGate gate = shuffle.createGate("consumer", 0, partition);
            gate.setup();
            toState.apply(shuffle, gate, writer);

            assertThrows(ShuffleException.class, () -> call.run(gate), method + " of a gate " + state);
            assertDoesNotThrow(gate::close, "close() of a gate " + state);
        }
    }

    @Test
    void gateOfAFailedProducer_throwsProducerFailedException_carryingTheProducersMessage() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);

            writer.fail(PRODUCER_CAUSE);

            ProducerFailedException failure = assertThrows(ProducerFailedException.class, reader::next);
            assertTrue(failure.getMessage().contains("disk full"), failure.getMessage());
            assertInstanceOf(ShuffleException.class, assertThrows(IOException.class, reader::next),
                    "every later read fails too");
        }
    }

    @Test
    void readerAfterItsOwnClose_throwsIllegalStateException_aUsageError() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            RecordReader reader = shuffle.setUpReader("consumer", 0, shuffle.registerPartition(1));
            reader.close();

            assertThrows(IllegalStateException.class, reader::next);
            assertDoesNotThrow(reader::close);
        }
    }

    /** What a waiting call ended with, and whether its thread still had its interrupt status afterwards. */
    record Interrupted(Throwable thrown, boolean statusKept) {
    }

    private static Interrupted interruptWhileWaiting(String parkedIn, Call<Void> waitingCall) throws Exception {
        BackgroundTask<Interrupted> task = BackgroundTask.start("waiting", () -> {
            try {
                waitingCall.run(null);
                return new Interrupted(null, Thread.currentThread().isInterrupted());
            } catch (Exception e) {
                return new Interrupted(e, Thread.currentThread().isInterrupted());
            }
        });
        task.awaitParkedIn(parkedIn, Await.EVENTUALLY);
        task.thread().interrupt();
        return task.await(Await.EVENTUALLY);
    }

    @Test
    void interruptedWhileWaiting_getNextAndNextThrowInterruptedException_andKeepTheInterruptStatus() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            // A subpartition has one reader: each waiting consumer reads a partition of its own, which stays silent.
            RegisteredPartition[] partitions = new RegisteredPartition[3];
            for (int i = 0; i < partitions.length; i++) {
                partitions[i] = shuffle.registerPartition(1);
                shuffle.createWriter("producer " + i, partitions[i]).setup();
            }
            InputGate gate = shuffle.createGate("consumer", 0, partitions[0]);
            gate.setup();
            RecordReader reader = shuffle.setUpReader("reader", 0, partitions[1]);
            InputGate union = new UnionInputGate(List.of(shuffle.createGate("union", 0, partitions[2])));
            union.setup();

            for (Interrupted outcome : List.of(
                    interruptWhileWaiting("getNext", ignored -> gate.getNext()),
                    interruptWhileWaiting("next", ignored -> {
                        reader.next();
                    }),
                    interruptWhileWaiting("getNext", ignored -> union.getNext()))) {
                assertInstanceOf(InterruptedException.class, outcome.thrown());
                assertTrue(outcome.statusKept(), "the interrupt status is kept: " + outcome.thrown());
            }
            union.close();
        }
    }

    @Test
    void interruptedWhileWaitingForABuffer_emitRecordThrowsInterruptedIOException_withTheCause_andKeepsTheStatus()
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, MemoryConfig.of(64, 4096))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            ByteBuffer big = ByteBuffer.allocate(4096);

            Interrupted outcome = interruptWhileWaiting("requestSegmentBlocking", ignored -> {
                while (true) {
                    writer.emitRecord(big.duplicate(), 0); // nobody reads: the pool runs dry
                }
            });

            InterruptedIOException failure = assertInstanceOf(InterruptedIOException.class, outcome.thrown());
            assertInstanceOf(InterruptedException.class, failure.getCause());
            assertTrue(failure.getMessage().contains(partition.id().toString()), failure.getMessage());
            assertTrue(outcome.statusKept(), "the interrupt status is kept");
        }
    }

    private static boolean causes(Throwable failure, Throwable cause) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t == cause) {
                return true;
            }
        }
        return false;
    }

}
