package io.sluice.flink;

import io.netty.util.concurrent.FastThreadLocalThread;
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
import io.sluice.testing.Await;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.io.PullingAsyncDataInput.EndOfDataStatus;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.io.network.api.CancelCheckpointMarker;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EndOfData;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.EventAnnouncement;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ProducerFailedException;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.sluice.flink.AdapterPair.WAIT_NANOS;
import static io.sluice.flink.AdapterPair.flinkRecord;
import static io.sluice.flink.AdapterPair.pollWithin;
import static io.sluice.flink.AdapterPair.readOne;
import static io.sluice.flink.AdapterPair.readUntilEvent;
import static io.sluice.flink.AdapterPair.records;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Flink writer and gate over real Sluice environments, driven the way Flink's StreamTask drives them, in-process
 * and over the transport: aligned barriers hold back what follows until the consumer resumes, end of data is
 * acknowledged back to the producer, end of partition finishes channels, and channel identities are Flink's.
 */
class SluiceAdapterTest {


    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void alignedBarrier_holdsBackLaterRecords_untilTheGateResumesThatChannel(String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 3);
            for (int i = 0; i < 10; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            writer.broadcastEvent(new CheckpointBarrier(7, 0, CheckpointOptions.forCheckpointWithDefaultLocation()),
                    false);
            for (int i = 10; i < 20; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            writer.flushAll();

            List<Integer> before = new ArrayList<>();
            AbstractEvent barrier = readUntilEvent(gate, before);
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), before);
            assertInstanceOf(CheckpointBarrier.class, barrier);
            assertEquals(7, ((CheckpointBarrier) barrier).getId());

            Await.holdsThroughout(() -> gate.pollNext().isEmpty(),
                    "records after an aligned barrier wait for resumeConsumption");

            gate.resumeConsumption(new InputChannelInfo(3, 0));
            List<Integer> after = new ArrayList<>();
            while (after.size() < 10) {
                assertFalse(readOne(gate, after).isPresent(), "no event after the barrier");
            }
            assertEquals(List.of(10, 11, 12, 13, 14, 15, 16, 17, 18, 19), after);
            writer.finish();
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void endOfData_isAcknowledgedByEveryConsumer_beforeAllDataProcessedCompletes_thenEndOfPartitionFinishes(
            String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(2);
            SluiceInputGate gate0 = pair.gate(writer, 0, 0);
            SluiceInputGate gate1 = pair.gate(writer, 1, 1);
            writer.emitRecord(flinkRecord(42), 1);
            writer.notifyEndOfData(StopMode.DRAIN);

            assertInstanceOf(EndOfData.class, readUntilEvent(gate0, new ArrayList<>()));
            List<Integer> records = new ArrayList<>();
            assertInstanceOf(EndOfData.class, readUntilEvent(gate1, records));
            assertEquals(List.of(42), records);
            assertEquals(EndOfDataStatus.DRAINED, gate1.hasReceivedEndOfData());

            gate0.acknowledgeAllRecordsProcessed(new InputChannelInfo(0, 0));
            Await.holdsThroughout(() -> !writer.getAllDataProcessedFuture().isDone(),
                    "subpartition 1 has not acknowledged yet");
            gate1.acknowledgeAllRecordsProcessed(new InputChannelInfo(1, 0));
            writer.getAllDataProcessedFuture().get(WAIT_NANOS, java.util.concurrent.TimeUnit.NANOSECONDS);

            writer.finish();
            assertEquals(1, gate0.getUnfinishedChannels().size());
            assertInstanceOf(EndOfPartitionEvent.class, readUntilEvent(gate0, new ArrayList<>()));
            assertTrue(gate0.isFinished());
            assertEquals(List.of(), gate0.getUnfinishedChannels());
            assertTrue(gate0.getAvailableFuture().isDone(), "a finished gate is available");
            writer.close();
            gate0.close();
            gate1.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process"})
    void channels_carryFlinksChannelInfoAndConsumedSubpartition_andCheckpointsDuringRecoveryAreRefused(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(3);
            SluiceInputGate gate = pair.gate(writer, 2, 5);

            assertEquals(new InputChannelInfo(5, 0), gate.getChannel(0).getChannelInfo());
            assertEquals(List.of(new InputChannelInfo(5, 0)), gate.getChannelInfos());
            assertTrue(gate.getChannel(0).getConsumedSubpartitionIndexSet().contains(2));
            gate.setChannelStateWriter(new ChannelStateWriter.NoOpChannelStateWriter());
            writer.setChannelStateWriter(new ChannelStateWriter.NoOpChannelStateWriter());
            gate.setCheckpointingDuringRecoveryEnabled(false);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> gate.setCheckpointingDuringRecoveryEnabled(true));
            assertTrue(refused.getMessage().contains("execution.checkpointing.during-recovery.enabled: false"),
                    refused.getMessage());
            writer.finish();
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void priorityEvent_overtakesQueuedRecords_andReachesFlinkAsPriority_throughThePriorityFuture(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            for (int i = 0; i < 5; i++) {
                writer.emitRecord(flinkRecord(i), 0);
            }
            writer.flushAll();
            writer.broadcastEvent(new CancelCheckpointMarker(3), false);
            assertFalse(gate.getPriorityEventAvailableFuture().isDone(), "no priority event yet");
            CheckpointBarrier barrier = new CheckpointBarrier(4, 0,
                    CheckpointOptions.forCheckpointWithDefaultLocation());
            writer.broadcastEvent(new EventAnnouncement(barrier, 11), true);

            // Flink's checkpointed gate polls from a mail once this completes and insists on a priority event.
            gate.getPriorityEventAvailableFuture().get(WAIT_NANOS, java.util.concurrent.TimeUnit.NANOSECONDS);
            BufferOrEvent first = gate.pollNext().orElseThrow();
            assertTrue(first.isEvent() && first.hasPriority(), "first comes the priority event: " + first);
            assertFalse(first.morePriorityEvents());
            EventAnnouncement announcement = assertInstanceOf(EventAnnouncement.class, first.getEvent());
            assertEquals(11, announcement.getSequenceNumber());
            assertEquals(4, ((CheckpointBarrier) announcement.getAnnouncedEvent()).getId());
            assertFalse(gate.getPriorityEventAvailableFuture().isDone(), "the only priority event was taken");

            List<Integer> records = new ArrayList<>();
            AbstractEvent next = readUntilEvent(gate, records);
            assertEquals(List.of(0, 1, 2, 3, 4), records, "then the records queued before it, in order");
            assertInstanceOf(CancelCheckpointMarker.class, next, "an ordinary event keeps its place");
            writer.finish();
            writer.close();
            gate.close();
            assertFalse(gate.getPriorityEventAvailableFuture().isDone(),
                    "a closed gate has no priority event for Flink's priority mail to poll");
        }
    }

    /**
     * The futures Flink's mailbox waits on are Sluice's wake-up futures, completed directly by the
     * transport thread that makes the gate or writer available, as Flink's own network stack completes them, not
     * after a hop through Sluice's notification thread ({@code sluice-notify-*}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"nio"})
    void availabilityFutures_areSluicesWakeUpFutures_completedByTheTransportThread_withoutAHop(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            assertEquals(Optional.empty(), gate.pollNext(), "nothing was emitted yet");

            CompletableFuture<Thread> dataOn = threadThatRuns(gate.getAvailableFuture());
            writer.emitRecord(flinkRecord(1), 0);
            writer.flushAll();
            assertTransportThread(dataOn.get(WAIT_NANOS, TimeUnit.NANOSECONDS), "the gate's available future");
            assertEquals(List.of(1), records(gate.pollNext().orElseThrow()));

            CompletableFuture<Thread> priorityOn = threadThatRuns(gate.getPriorityEventAvailableFuture());
            writer.broadcastEvent(new EventAnnouncement(new CheckpointBarrier(1, 0,
                    CheckpointOptions.forCheckpointWithDefaultLocation()), 1), true);
            assertTransportThread(priorityOn.get(WAIT_NANOS, TimeUnit.NANOSECONDS), "the gate's priority future");
            assertTrue(gate.pollNext().orElseThrow().hasPriority());

            ByteBuffer bufferSized = ByteBuffer.allocate(4096);
            Thread test = Thread.currentThread();
            CompletableFuture<Thread> writerOn;
            int attempt = 0;
            do {
                // The writer also turns available from sending alone: when that happens before the continuation is
                // added, it runs here and says nothing, so try again.
                assertTrue(++attempt <= 20, "every attempt raced with the writer turning available");
                int emitted = 0;
                CompletableFuture<?> available;
                while ((available = writer.getAvailableFuture()).isDone()) {
                    assertTrue(emitted < 10_000, "the writer stayed available after " + emitted + " records");
                    writer.emitRecord(bufferSized.clear(), 0);
                    writer.flushAll();
                    emitted++;
                }
                writerOn = new CompletableFuture<>();
                CompletableFuture<Thread> ranOn = writerOn;
                available.thenRun(() -> ranOn.complete(Thread.currentThread()));
                while (!writerOn.isDone()) {
                    Optional<BufferOrEvent> next = gate.pollNext();
                    if (next.isPresent()) {
                        next.get().getBuffer().recycleBuffer();
                    } else {
                        CompletableFuture.anyOf(gate.getAvailableFuture(), writerOn)
                                .get(WAIT_NANOS, TimeUnit.NANOSECONDS);
                    }
                }
            } while (writerOn.get() == test);
            assertTransportThread(writerOn.get(), "the writer's available future");
            writer.close();
            gate.close();
        }
    }

    /** @return completes with the thread that runs a continuation of {@code future} */
    private static CompletableFuture<Thread> threadThatRuns(CompletableFuture<?> future) {
        assertFalse(future.isDone(), "the future must be pending for the test to say anything");
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        future.thenRun(() -> thread.complete(Thread.currentThread()));
        return thread;
    }

    /** Sluice's event loops run on Netty's FastThreadLocalThreads; its notification thread is a plain one. */
    private static void assertTransportThread(Thread thread, String what) {
        assertFalse(thread.getName().startsWith("sluice-notify"),
                what + " was completed by Sluice's notification thread " + thread.getName());
        assertTrue(thread instanceof FastThreadLocalThread,
                what + " was completed by " + thread.getName() + ", not by a transport event loop");
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process"})
    void bytesPerSubpartition_countRecordsBroadcastsAndEvents_completeWhenTheWriterFinishes(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(2);
            SluiceInputGate gate0 = pair.gate(writer, 0, 0);
            SluiceInputGate gate1 = pair.gate(writer, 1, 1);
            writer.emitRecord(flinkRecord(1), 0);
            writer.emitRecord(flinkRecord(2), 0);
            writer.emitRecord(flinkRecord(3), 1);
            writer.broadcastRecord(flinkRecord(4));
            writer.finish();

            // Flink's adaptive batch scheduler reads the counter once the task finished: every byte must be there.
            long record = flinkRecord(0).remaining();
            long endOfPartition = EventSerializer.toSerializedEvent(EndOfPartitionEvent.INSTANCE).remaining();
            assertArrayEquals(new long[] {3 * record + endOfPartition, 2 * record + endOfPartition},
                    writer.partitionBytes().createSnapshot().getSubpartitionBytes());
            writer.close();
            gate0.close();
            gate1.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void gateReadingDifferentSubpartitionIndexes_readsThemAsAUnion_underFlinksChannelNumbers(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter a = pair.writer(2);
            SluiceResultPartitionWriter b = pair.writer(2);
            SluiceResultPartitionWriter c = pair.writer(2);
            // Flink channel 0 reads a[1], channel 1 reads b[0], channel 2 reads c[1]: two Sluice gates, one union.
            SluiceInputGate gate = pair.gate(new SluiceResultPartitionWriter[] {a, b, c}, new int[] {1, 0, 1}, 2);
            assertEquals(List.of(new InputChannelInfo(2, 0), new InputChannelInfo(2, 1), new InputChannelInfo(2, 2)),
                    gate.getChannelInfos());
            assertTrue(gate.getChannel(1).getConsumedSubpartitionIndexSet().contains(0));
            assertTrue(gate.getChannel(2).getConsumedSubpartitionIndexSet().contains(1));
            a.emitRecord(flinkRecord(100), 1);
            a.emitRecord(flinkRecord(-1), 0);
            b.emitRecord(flinkRecord(200), 0);
            b.emitRecord(flinkRecord(-2), 1);
            c.emitRecord(flinkRecord(300), 1);
            b.broadcastEvent(new CheckpointBarrier(9, 0, CheckpointOptions.forCheckpointWithDefaultLocation()),
                    false);
            b.emitRecord(flinkRecord(201), 0);
            for (SluiceResultPartitionWriter writer : List.of(a, b, c)) {
                writer.flushAll();
            }

            Map<Integer, List<Integer>> byChannel = new TreeMap<>();
            BufferOrEvent barrier = null;
            while (barrier == null || byChannel.size() < 3) {
                BufferOrEvent next = pollWithin(gate);
                if (next.isEvent()) {
                    barrier = next;
                } else {
                    byChannel.computeIfAbsent(next.getChannelInfo().getInputChannelIdx(), k -> new ArrayList<>())
                            .addAll(records(next));
                }
            }
            assertEquals(Map.of(0, List.of(100), 1, List.of(200), 2, List.of(300)), byChannel,
                    "each channel got its own subpartition, under Flink's channel number");
            assertInstanceOf(CheckpointBarrier.class, barrier.getEvent());
            assertEquals(new InputChannelInfo(2, 1), barrier.getChannelInfo());
            Await.holdsThroughout(() -> gate.pollNext().isEmpty(), "channel 1 is blocked by its barrier");

            gate.resumeConsumption(new InputChannelInfo(2, 1));
            BufferOrEvent resumed = pollWithin(gate);
            assertEquals(new InputChannelInfo(2, 1), resumed.getChannelInfo());
            assertEquals(List.of(201), records(resumed));
            for (SluiceResultPartitionWriter writer : List.of(a, b, c)) {
                writer.finish();
            }
            int ends = 0;
            while (!gate.isFinished()) {
                BufferOrEvent next = pollWithin(gate);
                assertInstanceOf(EndOfPartitionEvent.class, next.getEvent());
                ends++;
            }
            assertEquals(3, ends, "one end of partition per channel");
            for (SluiceResultPartitionWriter writer : List.of(a, b, c)) {
                writer.close();
            }
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void flinkTaskEvent_sentByTheConsumer_reachesTheProducersTaskEventDispatcher(String link) throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            TaskEventDispatcher dispatcher = new TaskEventDispatcher();
            SluiceResultPartitionWriter writer = pair.writer(1, dispatcher);
            CompletableFuture<TaskEvent> received = new CompletableFuture<>();
            dispatcher.registerPartition(writer.getPartitionId());
            dispatcher.subscribeToEvent(writer.getPartitionId(), received::complete, NumberedTaskEvent.class);
            SluiceInputGate gate = pair.gate(writer, 0, 0);

            gate.sendTaskEvent(new NumberedTaskEvent(4711));

            TaskEvent event = received.get(WAIT_NANOS, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertEquals(4711, assertInstanceOf(NumberedTaskEvent.class, event).number);
            writer.finish();
            writer.close();
            gate.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void producerFailure_reachesTheConsumerAsFlinksProducerFailedException_soItsTaskIsCancelledNotFailed(String link)
            throws Exception {
        try (AdapterPair pair = new AdapterPair(link)) {
            SluiceResultPartitionWriter writer = pair.writer(1);
            SluiceInputGate gate = pair.gate(writer, 0, 0);
            writer.emitRecord(flinkRecord(1), 0);
            writer.flushAll();

            writer.fail(new Exception("snapshot of the producer failed"));
            writer.close();

            // Flink's task turns a CancelTaskException into CANCELED, so the job fails with the producer's own cause.
            ProducerFailedException polled = assertThrows(ProducerFailedException.class, () -> {
                while (true) {
                    readOne(gate, new ArrayList<>());
                }
            });
            assertTrue(polled.getCause().getMessage().contains("snapshot of the producer failed"),
                    polled.getCause().getMessage());
            assertThrows(ProducerFailedException.class, gate::getNext, "the blocking read reports it too");
            gate.close();
        }
    }

    /** A task event of a user's own class, as iterative jobs send them: travels by class name and its bytes. */
    public static final class NumberedTaskEvent extends TaskEvent {

        private long number;

        /** For Flink's event serializer. */
        public NumberedTaskEvent() {
        }

        NumberedTaskEvent(long number) {
            this.number = number;
        }

        @Override
        public void write(DataOutputView out) throws IOException {
            out.writeLong(number);
        }

        @Override
        public void read(DataInputView in) throws IOException {
            number = in.readLong();
        }
    }
}
