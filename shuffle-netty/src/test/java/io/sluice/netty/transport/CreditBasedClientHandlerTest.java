package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.CorruptDataException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ShuffleException;
import io.sluice.api.TransportException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.SingleInputGate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client end of a connection: buffers routed to their remote channels, credit batched into AddCredit, data for
 * released or unknown channels cancelled, and errors sent to one channel or to all (docs/behaviours.md sections 11 and
 * 12, CH-*, CTE-*). Real remote input channels with real pools receive the data; the server is a stream of encoded
 * frames.
 */
@Timeout(30)
class CreditBasedClientHandlerTest {

    private static final int SEGMENT_SIZE = 4096;
    private static final int SEGMENTS = 256;

    private final RemoteChannels channels = new RemoteChannels(SEGMENTS, SEGMENT_SIZE);
    private final NetworkBufferPool globalPool = channels.globalPool();
    private final BufferRecycler senderBuffers = mock(BufferRecycler.class);
    private ClientConnection connection = new ClientConnection();

    @TempDir
    Path directory;

    @AfterEach
    void closeAndCheckForLeaks() {
        connection.close();
        channels.close();
    }

    // CH-2
    @Test
    void bufferWithBacklog_isQueuedAtItsChannel_whichBorrowsForTheBacklog_thenAnEmptyBufferTakesTheEmptyPath()
            throws Exception {
        RemoteInputChannel channel = RemoteChannels.channel(channels.gate(1, 2, 8), 0);
        connection.request(channel, 2);
        assertEquals(List.of(new PartitionRequest(channel.partitionId(), 0, channel.inputChannelId(), 2)),
                connection.written(), "the request carries the exclusive buffers as initial credit");

        connection.receive(data(channel, 0, 2, 100));

        assertEquals(4, RemoteChannels.requiredBuffers(channel), "backlog 2 + 2 exclusive");
        assertEquals(4, RemoteChannels.availableBuffers(channel), "1 exclusive left + 3 floating borrowed");
        assertEquals(List.of(new AddCredit(3, channel.inputChannelId())), connection.written(),
                "the floating credit goes out at the end of the read that brought the backlog");
        assertEquals(0, channel.unannouncedCredit());

        connection.receive(new BufferResponse(null, channel.inputChannelId(), 1, 0, DataType.DATA_BUFFER, 0));

        assertFalse(RemoteChannels.hasError(channel), "an empty buffer in sequence is no error");
        assertEquals(2, RemoteChannels.requiredBuffers(channel), "its backlog 0 was announced");
        assertPayload(TestBuffers.pattern(100, 0), RemoteChannels.nextBuffer(channel));
        assertNull(RemoteChannels.nextBuffer(channel), "the empty buffer queues nothing");
        verify(senderBuffers, times(1)).recycle(any());
    }

    // CH-4, CH-10 (a channel that cannot take the buffer fails alone; the connection stays healthy)
    @Test
    void bufferForAChannelWithoutAFreeBuffer_failsThatChannelOnly_andTheFollowingFramesStillArrive()
            throws Exception {
        SingleInputGate gate = requestedGate(2, 1, 0);
        RemoteInputChannel starved = RemoteChannels.channel(gate, 0);
        RemoteInputChannel healthy = RemoteChannels.channel(gate, 1);

        connection.receive(data(starved, 0, 0, 10), data(starved, 1, 0, 20), data(healthy, 0, 0, 30));

        ShuffleException error = assertThrows(ShuffleException.class, () -> RemoteChannels.nextBuffer(starved));
        IllegalStateException cause = assertInstanceOf(IllegalStateException.class, error.getCause());
        assertTrue(cause.getMessage().contains("broke the credit contract"), cause.getMessage());
        assertTrue(cause.getMessage().contains(RemoteChannels.PRODUCER.value()), cause.getMessage());
        assertPayload(TestBuffers.pattern(30, 0), RemoteChannels.nextBuffer(healthy));
        assertFalse(RemoteChannels.hasError(healthy));
        assertTrue(connection.channel().isActive());
        assertEquals(List.of(), connection.written(), "the channel is failed, not cancelled");
        connection.channel().checkException();
    }

    // CH-5, RIC-5
    @Test
    void partitionNotFound_takesTheChannelsRetryPath_notAFailure() throws Exception {
        channels.backoff(Duration.ofMillis(5), Duration.ofMillis(20));
        RemoteInputChannel channel = RemoteChannels.channel(requestedGate(1, 2, 0), 0);

        connection.receive(new ErrorResponse(ErrorKind.PARTITION_NOT_FOUND, "not registered yet",
                channel.partitionId(), channel.inputChannelId()));

        assertFalse(RemoteChannels.hasError(channel));
        assertEquals(List.of(5L), channels.timer().delaysMillis(), "one retry scheduled after the initial backoff");
    }

    // CH-7
    @Test
    void creditOfTwoChannels_oneAddCreditEach_heldBackWhileUnwritable_sentWhenWritable() throws Exception {
        SingleInputGate gate = requestedGate(2, 2, 8);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        RemoteInputChannel second = RemoteChannels.channel(gate, 1);

        connection.receive(data(first, 0, 1, 10), data(second, 0, 1, 10));

        assertEquals(List.of(new AddCredit(2, first.inputChannelId()), new AddCredit(2, second.inputChannelId())),
                connection.written(), "2 floating buffers borrowed for backlog 1 each, announced in one flush at "
                        + "the end of the read");
        assertEquals(0, first.unannouncedCredit());
        assertEquals(0, second.unannouncedCredit());
        connection.notifyCreditAvailable(first);
        connection.notifyCreditAvailable(second);
        connection.notifyCreditAvailable(first);
        connection.runPendingTasks();
        assertEquals(List.of(), connection.written(), "nothing more");

        connection.setWritable(false);
        connection.receive(data(first, 1, 1, 10));
        assertEquals(List.of(), connection.written(), "held back while the connection is unwritable");
        assertEquals(1, first.unannouncedCredit(), "held, not dropped");
        connection.notifyCreditAvailable(first);
        connection.runPendingTasks();
        assertEquals(List.of(), connection.written(), "still held back");

        connection.setWritable(true);

        assertEquals(List.of(new AddCredit(1, first.inputChannelId())), connection.written());
        assertEquals(0, first.unannouncedCredit());
    }

    /**
     * A consumer that recycles while the producer still holds credit (3 exclusive buffers, one received) wakes no
     * event loop: the credit waits, and the next buffer the event loop reads carries it out in that read's flush.
     */
    @Test
    void recycleWhileTheProducerHoldsCredit_schedulesNothing_theNextReadAnnouncesIt() throws Exception {
        RemoteInputChannel channel = channelRequestedThroughTheClient(3);
        connection.receive(data(channel, 0, 0, 10));
        assertEquals(List.of(), connection.written(), "no credit granted yet");

        RemoteChannels.nextBuffer(channel).recycleBuffer();
        assertEquals(1, channel.unannouncedCredit());
        assertFalse(connection.channel().hasPendingTasks(), "the recycle scheduled no task");
        connection.runPendingTasks();
        assertEquals(List.of(), connection.written(), "the producer still holds 2 credits: nothing sent yet");

        connection.receive(data(channel, 1, 0, 10));

        assertEquals(List.of(new AddCredit(1, channel.inputChannelId())), connection.written(),
                "the deferred credit went out with the next read");
        assertEquals(0, channel.unannouncedCredit());
        RemoteChannels.nextBuffer(channel).recycleBuffer();
    }

    /** When the producer has run out (1 exclusive buffer, received), a recycle announces its credit at once. */
    @Test
    void recycleWhenTheProducerRanOut_announcesAtOnce() throws Exception {
        RemoteInputChannel channel = channelRequestedThroughTheClient(1);
        connection.receive(data(channel, 0, 0, 10));

        RemoteChannels.nextBuffer(channel).recycleBuffer();
        assertTrue(connection.channel().hasPendingTasks(), "the recycle handed the credit to the event loop");
        connection.runPendingTasks();

        assertEquals(List.of(new AddCredit(1, channel.inputChannelId())), connection.written());
        assertEquals(0, channel.unannouncedCredit());
    }

    /** A channel of a one-channel gate that requested its partition through this connection's client, as in use. */
    private RemoteInputChannel channelRequestedThroughTheClient(int exclusive) throws Exception {
        channels.connectingTo(ClientConnection.CONNECTION, connectionId -> {
            assertTrue(connection.client().acquire(), "the client is open");
            return connection.client();
        });
        RemoteInputChannel channel = RemoteChannels.channel(channels.gate(1, exclusive, 0), 0);
        RemoteChannels.requestSubpartition(channel);
        connection.runPendingTasks();
        assertEquals(List.of(new PartitionRequest(channel.partitionId(), 0, channel.inputChannelId(), exclusive)),
                connection.written());
        return channel;
    }

    // CH-8
    @Test
    void releasedChannelAnnouncesNoCredit_nonLastCloseCancels_lastCloseSendsCloseRequestAndCloses()
            throws Exception {
        SingleInputGate gate = requestedGate(2, 2, 0);
        RemoteInputChannel first = RemoteChannels.channel(gate, 0);
        RemoteInputChannel second = RemoteChannels.channel(gate, 1);
        connection.receive(data(first, 0, 1, 10));
        RemoteChannels.nextBuffer(first).recycleBuffer();
        assertEquals(1, first.unannouncedCredit(), "its exclusive buffer came back: one credit to announce");
        connection.notifyCreditAvailable(first);

        RemoteChannels.release(first);
        connection.client().close(first, true);
        connection.runPendingTasks();

        assertEquals(List.of(new CancelPartitionRequest(first.inputChannelId())), connection.written(),
                "no AddCredit for the released channel, and a cancel as it is not the last");
        assertTrue(connection.channel().isActive());

        connection.client().close(second, true);
        connection.runPendingTasks();

        assertEquals(List.of(new CloseRequest()), connection.written());
        assertFalse(connection.channel().isActive(), "the last channel closes the connection");
        assertFalse(RemoteChannels.hasError(second), "an orderly close fails no channel");
    }

    // CH-6
    @Test
    void channelsLettingGoOfAClosedConnection_sendNothing_andNothingThrows() throws Exception {
        SingleInputGate gate = requestedGate(2, 1, 0);
        connection.channel().close();
        connection.runPendingTasks();

        connection.client().close(RemoteChannels.channel(gate, 0), true);
        connection.client().close(RemoteChannels.channel(gate, 1), true);
        connection.runPendingTasks();

        assertEquals(List.of(), connection.written());
        connection.channel().checkException();
        assertEquals(0, connection.handler().channelCount());
    }

    // CH-9
    @Test
    void bufferForAChannelReleasedBeforeDecoding_takesNoBuffer_queuesNothing_andCancels() throws Exception {
        RemoteInputChannel channel = RemoteChannels.channel(requestedGate(1, 2, 0), 0);
        RemoteChannels.release(channel);

        connection.receive(data(channel, 0, 0, 50));

        assertEquals(List.of(new CancelPartitionRequest(channel.inputChannelId())), connection.written());
        assertNull(RemoteChannels.nextBuffer(channel));
        assertFalse(RemoteChannels.hasError(channel));
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments(), "no buffer was taken");
    }

    // CH-9
    @Test
    void bufferDecodedIntoAChannelReleasedMidFrame_isRecycledAndCancelled() throws Exception {
        RemoteInputChannel channel = RemoteChannels.channel(requestedGate(1, 2, 0), 0);
        byte[] frame = connection.encode(data(channel, 0, 0, 1000));

        connection.receiveRaw(Arrays.copyOfRange(frame, 0, 500), 500);
        assertEquals(1, RemoteChannels.availableBuffers(channel), "the decoder holds one of the channel's buffers");
        RemoteChannels.release(channel);
        connection.receiveRaw(Arrays.copyOfRange(frame, 500, frame.length), frame.length);

        assertEquals(List.of(new CancelPartitionRequest(channel.inputChannelId())), connection.written());
        assertNull(RemoteChannels.nextBuffer(channel));
        assertEquals(SEGMENTS, globalPool.getNumberOfAvailableMemorySegments(),
                "the half-filled exclusive buffer went back to the global pool");
    }

    // CH-9, MSG-6
    @Test
    void bufferForAnUnknownReceiverMidStream_isCancelled_andTheFollowingFramesReachTheirChannel() throws Exception {
        RemoteInputChannel channel = RemoteChannels.channel(requestedGate(1, 2, 0), 0);
        InputChannelId unknown = new InputChannelId(7, 7);

        connection.receive(data(channel, 0, 0, 10),
                new BufferResponse(TestBuffers.dataBuffer(300, 9, senderBuffers), unknown, 0, 0,
                        DataType.DATA_BUFFER, 300),
                data(channel, 1, 0, 20));

        assertEquals(List.of(new CancelPartitionRequest(unknown)), connection.written());
        assertPayload(TestBuffers.pattern(10, 0), RemoteChannels.nextBuffer(channel));
        assertPayload(TestBuffers.pattern(20, 1), RemoteChannels.nextBuffer(channel));
        assertFalse(RemoteChannels.hasError(channel));
    }

    // RIC-1 on the wire
    @Test
    void sequenceGapOnTheWire_failsThatChannel_andRecyclesTheBuffer() throws Exception {
        SingleInputGate gate = requestedGate(2, 2, 0);
        RemoteInputChannel gapped = RemoteChannels.channel(gate, 0);
        RemoteInputChannel other = RemoteChannels.channel(gate, 1);

        connection.receive(data(gapped, 0, 0, 10), data(gapped, 2, 0, 10), data(other, 0, 0, 10));

        ShuffleException error = assertThrows(ShuffleException.class, () -> RemoteChannels.nextBuffer(gapped));
        assertTrue(error.getMessage().contains("expected buffer 1 but received 2"), error.getMessage());
        assertEquals(1, RemoteChannels.availableBuffers(gapped), "the out-of-order buffer came back at once");
        assertFalse(RemoteChannels.hasError(other));
    }

    // MSG-3 (events need no credit): an event arrives in a buffer of its own, not one of the channel's
    @Test
    void event_arrivesWithoutUsingTheChannelsBuffers() throws Exception {
        SingleInputGate gate = requestedGate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        Buffer event = EventSerializer.userEvent(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));

        connection.receive(new BufferResponse(event, channel.inputChannelId(), 0, 0, DataType.EVENT_BUFFER,
                event.readableBytes()));

        assertEquals(2, RemoteChannels.availableBuffers(channel));
        Optional<BufferOrEvent> next = gate.pollNext();
        assertTrue(next.isPresent());
        assertTrue(next.get().isEvent());
        assertEquals("hello", StandardCharsets.UTF_8.decode(next.get().data()).toString());
        next.get().recycle();
    }

    // CTE-2
    @Test
    void errorForOneChannel_failsOnlyIt_thenAFatalErrorFailsEveryChannel_andChannelsAddedLater() throws Exception {
        SingleInputGate gate = channels.gate(3, 1, 0);
        RemoteInputChannel failed = RemoteChannels.channel(gate, 0);
        RemoteInputChannel bystander = RemoteChannels.channel(gate, 1);
        connection.request(failed, 1);
        connection.request(bystander, 1);

        connection.receive(new ErrorResponse(ErrorKind.PRODUCER_FAILED, "producer p failed: out of disk", null,
                failed.inputChannelId()));

        ProducerFailedException producerFailed = assertThrows(ProducerFailedException.class,
                () -> RemoteChannels.nextBuffer(failed));
        assertEquals("producer p failed: out of disk", producerFailed.getMessage());
        assertFalse(RemoteChannels.hasError(bystander));

        connection.receive(new ErrorResponse(ErrorKind.TRANSPORT, "server shutting down", null, null));

        TransportException fatal = assertThrows(TransportException.class,
                () -> RemoteChannels.nextBuffer(bystander));
        assertTrue(fatal.getMessage().contains("server shutting down"), fatal.getMessage());
        assertTrue(fatal.getMessage().contains(RemoteChannels.PRODUCER.value()), fatal.getMessage());
        assertEquals(connection.channel().remoteAddress(), fatal.remoteAddress());
        assertThrows(ProducerFailedException.class, () -> RemoteChannels.nextBuffer(failed),
                "the first failure of a channel stays");
        connection.channel().checkException();

        RemoteInputChannel late = RemoteChannels.channel(gate, 2);
        connection.request(late, 1);
        assertSame(fatal, assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(late)));
    }

    /**
     * A stored buffer sent from the producer's file whose bytes fail their checksum fails its channel only, with
     * {@link CorruptDataException} naming what the decoder alone cannot: the partition, the subpartition, the data
     * file, at the channel's next read; the other channel of the connection reads on.
     */
    @Test
    void storedBufferThatFailsItsChecksum_failsOnlyItsChannel_namingPartitionSubpartitionFileAndOffset()
            throws Exception {
        SingleInputGate gate = channels.gate(2, 2, 0);
        RemoteInputChannel damaged = RemoteChannels.channel(gate, 0);
        RemoteInputChannel bystander = RemoteChannels.channel(gate, 1);
        connection.request(damaged, 2);
        connection.request(bystander, 2);
        int[] sizes = {100, 200};
        long damagedOffset = StoredRuns.offsetOf(1, sizes);

        connection.receive(new StoredRuns(directory).run(damaged.inputChannelId(), 0, 0, true, damagedOffset + 20,
                sizes), data(bystander, 0, 0, 64));

        CorruptDataException failure = assertThrows(CorruptDataException.class,
                () -> RemoteChannels.nextBuffer(damaged));
        String message = failure.getMessage();
        assertTrue(message.startsWith("subpartition 0 of blocking partition " + damaged.partitionId()
                + " is damaged at offset " + damagedOffset + " of its data file " + damaged.partitionId() + ".data"
                + " at the producer "), message);
        assertTrue(message.contains("fails its CRC32C check"), message);
        Buffer other = RemoteChannels.nextBuffer(bystander);
        assertArrayEquals(TestBuffers.pattern(64, 0), TestBuffers.readableBytes(other), "the other channel reads on");
        other.recycleBuffer();
        connection.channel().checkException();
    }

    // CTE-2: when two failures hit one connection at once, the first one is what every channel reports,
    // including a channel added afterwards. Deterministic: the first failing thread is held at one channel (the
    // test owns that channel's monitor, which recording an error takes) while the second failure runs.
    @Test
    void secondConnectionErrorWhileTheFirstIsBeingDelivered_everyChannelReportsTheFirst() throws Exception {
        CreditBasedClientHandler handler = new CreditBasedClientHandler(ClientConnection.CONNECTION);
        SingleInputGate gate = channels.gate(5, 0, 0);
        for (int i = 0; i < 4; i++) {
            handler.addInputChannel(RemoteChannels.channel(gate, i));
        }
        TransportException first = new TransportException("first failure", null);
        TransportException second = new TransportException("second failure", null);
        RemoteInputChannel held = RemoteChannels.channel(gate, 2);
        io.sluice.testing.BackgroundTask<Void> firstFailure;
        synchronized (held) {
            firstFailure = io.sluice.testing.BackgroundTask.start("first-failure",
                    () -> handler.failAllChannels(first));
            io.sluice.testing.Await.blocked(firstFailure.thread());
            handler.failAllChannels(second);
        }
        firstFailure.await();
        handler.addInputChannel(RemoteChannels.channel(gate, 4));

        for (int i = 0; i < 5; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            assertSame(first, assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(channel)),
                    "channel " + i);
        }
    }

    // CTE-3
    @Test
    void connectionClosedByTheServer_failsEveryChannel_withTransportExceptionNamingTheProducer() throws Exception {
        SingleInputGate gate = requestedGate(2, 1, 0);

        connection.channel().close();
        connection.runPendingTasks();

        for (int i = 0; i < 2; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            TransportException error = assertThrows(TransportException.class,
                    () -> RemoteChannels.nextBuffer(channel));
            assertTrue(error.getMessage().contains(ClientConnection.CONNECTION.address().toString()),
                    error.getMessage());
            assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
            assertEquals(ClientConnection.CONNECTION.address(), error.remoteAddress());
        }
    }

    // CTE-3, CH-8: a producer may close its connection once its partition was consumed; a channel that already holds
    // its end of partition has everything and must not fail because its consumer has not read it yet
    @Test
    void connectionClosedAfterAChannelsEndOfPartitionArrived_thatChannelDeliversEverything_theOtherFails()
            throws Exception {
        SingleInputGate gate = requestedGate(2, 2, 0);
        RemoteInputChannel complete = RemoteChannels.channel(gate, 0);
        RemoteInputChannel unfinished = RemoteChannels.channel(gate, 1);
        connection.receive(data(complete, 0, 0, 10), data(unfinished, 0, 0, 10),
                end(complete, 1, EventSerializer.endOfPartition()));

        connection.channel().close();
        connection.runPendingTasks();

        assertPayload(TestBuffers.pattern(10, 0), RemoteChannels.nextBuffer(complete));
        Buffer last = RemoteChannels.nextBuffer(complete);
        try {
            assertTrue(EventSerializer.isEndOfPartition(last), "the end of partition follows the data: " + last);
        } finally {
            last.recycleBuffer();
        }
        assertFalse(RemoteChannels.hasError(complete), "its stream was complete before the connection closed");
        assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(unfinished),
                "a channel still waiting for its end learns that the connection is gone");
    }

    // No silent short stream: the end of partition carries the data bytes written, and the gate checks them
    @Test
    void endOfPartitionCountingBytesThatNeverArrived_failsTheChannelNamingBothCounts_onEveryRead() throws Exception {
        SingleInputGate gate = requestedGate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        connection.receive(data(channel, 0, 0, 10), end(channel, 1, EventSerializer.endOfPartition(25)));

        Optional<BufferOrEvent> first = gate.pollNext();
        assertTrue(first.isPresent());
        first.get().recycle();
        ShuffleException error = assertThrows(ShuffleException.class, gate::pollNext);
        assertTrue(error.getMessage().contains("after 10 data bytes, but the producer wrote 25: 15 bytes were lost"),
                error.getMessage());
        assertFalse(gate.isFinished(), "a stream cut short does not end");
        assertThrows(ShuffleException.class, gate::pollNext, "every later read reports it too");
    }

    @Test
    void endOfPartitionCountingExactlyTheBytesThatArrived_finishesTheGate() throws Exception {
        SingleInputGate gate = requestedGate(1, 2, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        connection.receive(data(channel, 0, 0, 10), data(channel, 1, 0, 20),
                end(channel, 2, EventSerializer.endOfPartition(30)));

        for (int i = 0; i < 2; i++) {
            Optional<BufferOrEvent> next = gate.pollNext();
            assertTrue(next.isPresent());
            next.get().recycle();
        }
        assertTrue(gate.pollNext().isEmpty());
        assertTrue(gate.isFinished());
    }

    // One consumer wake-up per read, not per buffer
    @Test
    void threeBuffersForOneChannelInOneRead_wakeTheConsumerOnce_atTheEndOfTheRead_withAllThreeQueued()
            throws Exception {
        SingleInputGate gate = requestedGate(1, 4, 0);
        RemoteInputChannel channel = RemoteChannels.channel(gate, 0);
        List<Integer> queuedAtEachWakeUp = new ArrayList<>();
        gate.availableFuture().thenRun(() -> queuedAtEachWakeUp.add(gate.metrics().queuedBuffers()));

        connection.receive(data(channel, 0, 0, 10), data(channel, 1, 0, 20), data(channel, 2, 0, 30));

        assertEquals(List.of(3), queuedAtEachWakeUp,
                "the gate is told once, when the read has decoded every buffer the socket had");
        for (int size : new int[] {10, 20, 30}) {
            Optional<BufferOrEvent> next = gate.pollNext();
            assertTrue(next.isPresent());
            assertEquals(size, next.get().data().remaining(), "in order");
            next.get().recycle();
        }
        assertTrue(gate.pollNext().isEmpty());
    }

    // CTE-4, CH-11
    @Test
    void exceptionInThePipeline_failsEveryChannelWithTransportException_andClosesTheConnection() throws Exception {
        SingleInputGate gate = requestedGate(2, 1, 0);
        IOException reset = new IOException("Connection reset by peer");

        connection.channel().pipeline().fireExceptionCaught(reset);
        connection.runPendingTasks();

        for (int i = 0; i < 2; i++) {
            RemoteInputChannel channel = RemoteChannels.channel(gate, i);
            TransportException error = assertThrows(TransportException.class,
                    () -> RemoteChannels.nextBuffer(channel));
            assertSame(reset, error.getCause());
            assertTrue(error.getMessage().contains("Connection reset by peer"), error.getMessage());
            assertTrue(error.getMessage().contains(RemoteChannels.PRODUCER.value()), error.getMessage());
        }
        assertFalse(connection.channel().isActive());
        connection.channel().checkException();
    }

    // CTE-1
    @Test
    void failedWriteOfTheSecondRequest_failsOnlyTheChannelWhoseRequestFailed() throws Exception {
        SingleInputGate gate = channels.gate(2, 1, 0);
        RemoteInputChannel sent = RemoteChannels.channel(gate, 0);
        RemoteInputChannel lost = RemoteChannels.channel(gate, 1);
        connection.close();
        connection = new ClientConnection(new FailingRequestWrites(lost.inputChannelId()));

        connection.request(sent, 1);
        connection.request(lost, 1);

        assertEquals(List.of(new PartitionRequest(sent.partitionId(), 0, sent.inputChannelId(), 1)),
                connection.written());
        TransportException error = assertThrows(TransportException.class, () -> RemoteChannels.nextBuffer(lost));
        assertTrue(error.getMessage().contains(lost.partitionId().toString()), error.getMessage());
        assertTrue(error.getMessage().contains("socket buffer gone"), error.getMessage());
        assertFalse(RemoteChannels.hasError(sent));
        assertTrue(connection.channel().isActive());
    }

    // ------------------------------------------------------------------------------------------------------------

    /**
     * A gate of {@code count} channels that have sent their partition requests (drained from the connection), each
     * with its {@code exclusive} buffers as credit.
     */
    private SingleInputGate requestedGate(int count, int exclusive, int floating) throws IOException {
        SingleInputGate gate = channels.gate(count, exclusive, floating);
        for (int i = 0; i < count; i++) {
            connection.request(RemoteChannels.channel(gate, i), exclusive);
        }
        connection.written();
        return gate;
    }

    /** A data BufferResponse of {@code size} pattern bytes (seed = sequence number) for {@code channel}. */
    private BufferResponse data(RemoteInputChannel channel, int sequenceNumber, int backlog, int size) {
        return new BufferResponse(TestBuffers.dataBuffer(size, sequenceNumber, senderBuffers),
                channel.inputChannelId(), sequenceNumber, backlog, DataType.DATA_BUFFER, size);
    }

    /** The end-of-partition event {@code end} for {@code channel} as a BufferResponse. */
    private static BufferResponse end(RemoteInputChannel channel, int sequenceNumber, Buffer end) {
        return new BufferResponse(end, channel.inputChannelId(), sequenceNumber, 0, DataType.EVENT_BUFFER,
                end.readableBytes());
    }

    /** The buffer holds exactly {@code expected}; it is recycled. */
    private static void assertPayload(byte[] expected, Buffer buffer) {
        try {
            assertArrayEquals(expected, TestBuffers.readableBytes(buffer));
        } finally {
            buffer.recycleBuffer();
        }
    }

    /** Fails the write of one receiver's PartitionRequest, as a broken socket would. Event loop. */
    private static final class FailingRequestWrites extends ChannelOutboundHandlerAdapter {

        private final InputChannelId receiver;

        FailingRequestWrites(InputChannelId receiver) {
            this.receiver = receiver;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof PartitionRequest request && request.receiverId().equals(receiver)) {
                promise.setFailure(new IOException("socket buffer gone"));
                return;
            }
            ctx.write(msg, promise);
        }
    }
}
