package io.sluice.netty.transport;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.SingleInputGate;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.testing.Await;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.netty.gate.ConnectionId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote channels reading real partitions through the producer's real data server, both ends on Netty's local
 * transport: late registration, a partition that never comes, a consumer that leaves mid-stream, a producer that
 * fails, and a producer environment that goes away (docs/behaviours.md SRV-1, SRV-3, RIC-4, RIC-5, PRQ-1, CTE-3).
 */
@Timeout(60)
class RemoteInputChannelConnectionTest {

    private static final int CONSUMER_SEGMENTS = 64;

    private final PartitionFixture producerPartitions = new PartitionFixture();
    private final LocalConnectionManagers managers = new LocalConnectionManagers();
    private final ConnectionManager producer = managers.start(RemoteChannels.PRODUCER.value(),
            producerPartitions.manager());
    private final ConnectionManager consumer = managers.start("consumer");
    private final RemoteChannels channels = new RemoteChannels(CONSUMER_SEGMENTS, 4096)
            .connectingTo(new ConnectionId(producer.dataAddress(), 0, RemoteChannels.PRODUCER),
                    consumer);

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        channels.closeGates();
        managers.close();
        producerPartitions.close();
        channels.close();
    }

    // SRV-1, RIC-5: the client retries after "not found"; the partition registered meanwhile is read fully
    @Test
    void partitionRegisteredAfterTheFirstNotFound_isReadToItsEnd_inOrder() throws Exception {
        channels.backoff(Duration.ofMillis(5), Duration.ofSeconds(10));
        ResultPartitionId id = ResultPartitionId.random();
        SingleInputGate gate = channels.gate(2, 4, id);
        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 0));
        Await.until(() -> !channels.timer().delaysMillis().isEmpty(),
                "the server answered 'not found' and a retry is due");

        ResultPartition partition = producerPartitions.newPartition().id(id).setUp();
        List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(TestRecords.recordBytes(3, i, i % 50 * 5));
        }
        // More buffers than the producer's pool holds: it must block until the consumer reads, on its own thread.
        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            try {
                for (byte[] record : records) {
                    partition.emitRecord(ByteBuffer.wrap(record), 0);
                }
                partition.finish();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });

        List<byte[]> received = TestRecords.decodeFramed(readToTheEnd(gate));
        assertEquals(records.size(), received.size());
        for (int i = 0; i < records.size(); i++) {
            assertArrayEquals(records.get(i), received.get(i), "record " + i);
        }
        producing.get(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
        Await.until(partition::isReleased, "the producer side let go of the partition read to its end");
    }

    // SRV-1, RIC-4: a partition that never comes fails the channel once the backoff is used up
    @Test
    void partitionNeverRegistered_failsTheChannelWithPartitionNotFound_afterTheBackoff() throws Exception {
        channels.backoff(Duration.ofMillis(1), Duration.ofMillis(4));
        ResultPartitionId id = ResultPartitionId.random();
        SingleInputGate gate = channels.gate(1, 0, id);

        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 0));

        PartitionNotFoundException error = AwaitGate.failure(gate, PartitionNotFoundException.class);
        assertEquals(id, error.partitionId());
        assertEquals(List.of(1L, 2L, 4L), channels.timer().delaysMillis());
    }

    // SRV-3, SRV-4: a consumer that leaves mid-stream releases the producer's subpartition and its buffers
    @Test
    void gateClosedMidStream_releasesTheProducersSubpartitionAndItsBuffers() throws Exception {
        ResultPartition partition = producerPartitions.setUpPartition(1);
        for (int i = 0; i < 20; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
        }
        partition.flush(0);
        SingleInputGate gate = channels.gate(2, 0, partition.partitionId());
        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 0));
        BufferOrEvent first = AwaitGate.next(gate);
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, PartitionFixture.ONE_BUFFER_RECORD))),
                TestRecords.bytesOf(first.data()));
        first.recycle();

        gate.close();

        Await.until(() -> partition.subpartition(0).isReleased(), "the server released the consumer's view");
        Await.until(() -> partition.bufferPool().bestEffortGetNumOfUsedBuffers() == 0,
                "the unsent buffers went back to the producer's pool");
        Await.until(() -> consumer.openConnections() == 0, "the consumer closed its connection");
    }

    // PRQ-1 end to end: the producer's failure reaches the remote consumer with its message
    @Test
    void producerFails_theConsumerReadsWhatWasSent_thenProducerFailedExceptionWithTheCause() throws Exception {
        ResultPartition partition = producerPartitions.setUpPartition(1);
        SingleInputGate gate = channels.gate(2, 0, partition.partitionId());
        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 0));
        partition.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        partition.flush(0);
        AwaitGate.next(gate).recycle();

        partition.fail(new IllegalStateException("disk on fire"));

        ProducerFailedException error = AwaitGate.failure(gate, ProducerFailedException.class);
        assertTrue(error.getMessage().contains("disk on fire"), error.getMessage());
    }

    // CTE-3: the producer environment closes; every channel of the connection fails, naming the producer
    @Test
    void producerEnvironmentCloses_everyChannelFailsWithTransportException_namingProducerAndAddress()
            throws Exception {
        ResultPartition first = producerPartitions.setUpPartition(1);
        ResultPartition second = producerPartitions.setUpPartition(1);
        SingleInputGate gate = channels.gate(2, 0, first.partitionId(), second.partitionId());
        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 0));
        RemoteChannels.requestSubpartition(RemoteChannels.channel(gate, 1));
        first.emitRecord(TestRecords.record(0, 0, PartitionFixture.ONE_BUFFER_RECORD), 0);
        first.flush(0);
        AwaitGate.next(gate).recycle();

        producer.close();

        for (int i = 0; i < 2; i++) {
            int index = i;
            Await.until(() -> RemoteChannels.hasError(RemoteChannels.channel(gate, index)),
                    "channel " + index + " fails");
            TransportException error = assertThrows(TransportException.class,
                    () -> RemoteChannels.nextBuffer(RemoteChannels.channel(gate, index)));
            assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
            assertTrue(error.getMessage().contains(String.valueOf(producer.dataAddress().getPort())),
                    error.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------------------------

    /** Every data byte the gate hands out until it is finished. */
    private static byte[] readToTheEnd(SingleInputGate gate) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (!gate.isFinished()) {
            Optional<BufferOrEvent> next = gate.pollNext();
            if (next.isEmpty()) {
                if (!gate.isFinished()) {
                    gate.availableFuture().get(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
                }
                continue;
            }
            assertTrue(!next.get().isEvent(), "only data and the end of the partition were sent");
            bytes.writeBytes(TestRecords.bytesOf(next.get().data()));
            next.get().recycle();
        }
        return bytes.toByteArray();
    }

}
