package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Channels that read a subpartition of the same environment: data in order, failures, requests for partitions that
 * are not there (yet), and release from any thread (docs/behaviours.md section 8, LIC-*).
 */
@Timeout(60)
class LocalInputChannelTest {

    private final PartitionFixture fixture = new PartitionFixture();
    private final LocalGates gates = new LocalGates(fixture);
    private final ManualRetryScheduler retries = new ManualRetryScheduler();
    private final List<SingleInputGate> opened = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (SingleInputGate gate : opened) {
            gate.close();
        }
        retries.shutdownNow();
        fixture.close();
    }

    private SingleInputGate gateWithManualRetries(Duration initial, Duration max, ResultPartitionId partition)
            throws IOException {
        SingleInputGate gate = gates.gate(retries, initial, max, 0, partition);
        opened.add(gate);
        gate.setup();
        return gate;
    }

    // LIC-1
    @Test
    void manyProducersAndConsumers_everyConsumerGetsExactlyItsRecordsFromEveryChannel_inOrder() throws Exception {
        int producers = 32;
        int consumers = 32;
        // docs/behaviours.md uses 1024 per channel; 256 keeps the package's run short on a small build machine.
        int recordsPerChannel = 256;
        ResultPartition[] partitions = new ResultPartition[producers];
        ResultPartitionId[] ids = new ResultPartitionId[producers];
        for (int p = 0; p < producers; p++) {
            partitions[p] = fixture.setUpPartition(consumers);
            ids[p] = partitions[p].partitionId();
        }
        SingleInputGate[] consumerGates = new SingleInputGate[consumers];
        for (int c = 0; c < consumers; c++) {
            consumerGates[c] = gates.setUpGate(c, ids);
            opened.add(consumerGates[c]);
        }
        ExecutorService threads = Executors.newFixedThreadPool(producers + consumers);
        try {
            List<Future<int[]>> counts = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                int consumer = c;
                counts.add(threads.submit(() -> readAll(consumerGates[consumer], consumer, consumers)));
            }
            List<Future<?>> produced = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                produced.add(threads.submit(() -> {
                    produceInRandomOrder(partitions[producer], producer, consumers, recordsPerChannel);
                    return null;
                }));
            }
            for (Future<?> producer : produced) {
                producer.get(50, TimeUnit.SECONDS);
            }
            for (int c = 0; c < consumers; c++) {
                int[] perChannel = counts.get(c).get(50, TimeUnit.SECONDS);
                for (int p = 0; p < producers; p++) {
                    assertEquals(recordsPerChannel, perChannel[p], "consumer " + c + " from producer " + p);
                }
                assertTrue(consumerGates[c].isFinished());
            }
        } finally {
            threads.shutdownNow();
        }
        for (ResultPartition partition : partitions) {
            assertTrue(partition.isReleased(), "every subpartition read to its end: " + partition);
        }
    }

    private static void produceInRandomOrder(ResultPartition partition, int producer, int subpartitions,
                                             int recordsPerSubpartition) throws IOException {
        List<Integer> targets = new ArrayList<>(subpartitions * recordsPerSubpartition);
        for (int s = 0; s < subpartitions; s++) {
            for (int i = 0; i < recordsPerSubpartition; i++) {
                targets.add(s);
            }
        }
        Collections.shuffle(targets, new Random(producer));
        int[] next = new int[subpartitions];
        for (int target : targets) {
            partition.emitRecord(TestRecords.record(producer * subpartitions + target, next[target]++,
                    PartitionFixture.ONE_BUFFER_RECORD), target);
        }
        partition.finish();
    }

    /** Reads the gate to its end, checking every record's bytes; returns the number of records per channel. */
    private static int[] readAll(SingleInputGate gate, int consumer, int subpartitions) throws Exception {
        int[] read = new int[gate.numberOfInputChannels()];
        try (RecordReader reader = new RecordReader(gate)) {
            for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
                int producer = next.channelIndex();
                byte[] expected = TestRecords.recordBytes(producer * subpartitions + consumer, read[producer],
                        PartitionFixture.ONE_BUFFER_RECORD);
                assertArrayEquals(expected, TestRecords.bytesOf(next.data()),
                        "record " + read[producer] + " of producer " + producer + " at consumer " + consumer);
                read[producer]++;
            }
        }
        return read;
    }

    // LIC-2
    @Test
    void partitionNeverRegistered_retriesWithDoublingDelaysCappedAtTheMax_thenNotFound() throws Exception {
        ResultPartitionId missing = ResultPartitionId.random();
        SingleInputGate gate = gateWithManualRetries(Duration.ofMillis(500), Duration.ofMillis(3000), missing);
        assertNull(GateElement.poll(gate), "still retrying: no failure yet");

        assertEquals(4, retries.runAll());

        assertEquals(List.of(500L, 1000L, 2000L, 3000L), retries.delaysMillis());
        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class, gate::pollNext);
        assertEquals(missing, notFound.partitionId());
    }

    // LIC-2
    @Test
    void partitionNotFound_withoutBackoff_failsAtOnce() throws Exception {
        ResultPartitionId missing = ResultPartitionId.random();
        SingleInputGate gate = gateWithManualRetries(Duration.ZERO, Duration.ZERO, missing);

        assertEquals(List.of(), retries.delaysMillis(), "no retry is scheduled");
        assertTrue(gate.availableFuture().isDone());
        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class, gate::pollNext);
        assertEquals(missing, notFound.partitionId());
    }

    // LIC-2 ("when a retrigger fails")
    @Test
    void retryThatCannotBeScheduled_failsTheChannelWithNotFound() throws Exception {
        ResultPartitionId missing = ResultPartitionId.random();
        retries.shutdown();

        SingleInputGate gate = gateWithManualRetries(Duration.ofMillis(500), Duration.ofMillis(3000), missing);

        PartitionNotFoundException notFound = assertThrows(PartitionNotFoundException.class, gate::pollNext);
        assertEquals(missing, notFound.partitionId());
    }

    // LIC-2, RPM-2 (seen from the consumer): a gate set up before its producer reads everything once it appears
    @Test
    void partitionRegisteredDuringTheRetries_isReadFromTheStart() throws Exception {
        ResultPartition late = fixture.newPartition().build();
        SingleInputGate gate = gateWithManualRetries(Duration.ofMillis(500), Duration.ofMillis(3000),
                late.partitionId());
        assertTrue(retries.runNext(), "first retry: still not there");
        assertEquals(1, retries.pending());

        late.setup();
        late.emitRecord(TestRecords.record(7, 0, 100), 0);
        late.finish();
        assertTrue(retries.runNext());

        assertEquals(0, retries.pending(), "no retry after success");
        try (RecordReader reader = new RecordReader(gate)) {
            assertArrayEquals(TestRecords.recordBytes(7, 0, 100), TestRecords.bytesOf(reader.next().data()));
            assertNull(reader.next());
        }
    }

    // LIC-2: closing the gate cancels the pending retry
    @Test
    void close_cancelsAPendingRetry() throws Exception {
        ResultPartition late = fixture.newPartition().build();
        SingleInputGate gate = gateWithManualRetries(Duration.ofMillis(500), Duration.ofMillis(3000),
                late.partitionId());

        gate.close();
        late.setup();
        retries.runAll();

        assertEquals(1, retries.delaysMillis().size());
        assertEquals(0, late.subpartition(0).getNumberOfQueuedBuffers());
        late.emitRecord(TestRecords.record(1, 0, 10), 0);
        assertEquals(1, late.subpartition(0).getNumberOfQueuedBuffers(), "nobody took the subpartition's view");
    }

    // LIC-3
    @Test
    void viewReleasedWithACause_surfacesAsProducerFailed() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = gates.setUpGate(0, partition.partitionId());
        opened.add(gate);
        IllegalStateException cause = new IllegalStateException("operator crashed");

        partition.fail(cause);

        ProducerFailedException failed = assertThrows(ProducerFailedException.class,
                () -> gate.channel(0).getNextBuffer());
        assertTrue(failed.getMessage().contains("operator crashed"), failed.getMessage());
        assertSame(cause, failed.getCause());
    }

    // LIC-4 [core]
    @Test
    void gateCloseRacingAFailingRetriedRequest_neverDeadlocks() throws Exception {
        for (int round = 0; round < 300; round++) {
            SingleInputGate gate = gates.gate(fixture.scheduler(), Duration.ofMillis(1), Duration.ofMillis(2), 0,
                    ResultPartitionId.random(), ResultPartitionId.random());
            gate.setup();
            // Vary who wins: the retries run on the scheduler thread while this thread closes the gate.
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(4)));

            gate.close();

            assertThrows(ShuffleException.class, gate::pollNext);
        }
        assertEquals(300, gates.closeCallbacks());
    }

    // LIC-5
    @Test
    void viewReleasedUnderAReadingChannel_failsOnce_thenTheReleasedChannelReadsNothing() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = gates.setUpGate(0, partition.partitionId());
        opened.add(gate);
        InputChannel channel = gate.channel(0);
        partition.emitRecord(TestRecords.record(0, 0, 10), 0);

        fixture.manager().releasePartitions(List.of(partition.partitionId()), null);

        ProducerFailedException failed = assertThrows(ProducerFailedException.class, channel::getNextBuffer);
        assertTrue(failed.getMessage().contains("released before this channel read it to its end"),
                failed.getMessage());
        channel.releaseAllResources();
        assertNull(channel.getNextBuffer(), "a released channel reads nothing, and does not throw");
        assertTrue(channel.isReleased());
    }

    // docs/contract.md: a subpartition whose consumer has gone is released and never blocks its producer
    @Test
    void consumerClosesItsGateEarly_producerNeverBlocks_andTheOtherConsumerGetsEverything() throws Exception {
        ResultPartition partition = fixture.newPartition().subpartitions(2).buffers(3, 3).setUp();
        SingleInputGate leaving = gates.setUpGate(0, partition.partitionId());
        SingleInputGate staying = gates.setUpGate(1, partition.partitionId());
        opened.add(leaving);
        opened.add(staying);
        leaving.close();
        CompletableFuture<int[]> reads = CompletableFuture.supplyAsync(() -> {
            try {
                return readAll(staying, 1, 2);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        for (int i = 0; i < 200; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
            partition.emitRecord(TestRecords.record(1, i, PartitionFixture.ONE_BUFFER_RECORD), 1);
        }
        partition.finish();

        assertArrayEquals(new int[] {200}, reads.get(30, TimeUnit.SECONDS));
        assertTrue(partition.isReleased());
    }

    // LIC-5: a released channel ignores a late request and late notifications
    @Test
    void releasedChannel_ignoresLateNotifications_andRequests() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        SingleInputGate gate = gates.setUpGate(0, partition.partitionId());
        opened.add(gate);
        LocalInputChannel channel = (LocalInputChannel) gate.channel(0);

        channel.releaseAllResources();
        channel.requestSubpartition();
        channel.notifyDataAvailable();

        assertTrue(channel.isReleased());
        assertNull(channel.getNextBuffer());
        assertFalse(partition.isReleased(), "only its subpartition is released");
    }
}
