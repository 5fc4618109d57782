package io.sluice.netty.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.partition.ResultSubpartitionView;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send side of a server connection: which readers it serves, when, and with how much credit; what it answers for
 * a failed producer; and what cancelling a reader releases (docs/behaviours.md section 10, PRQ-*, SRV-4). Real
 * partitions produce the data; an {@link io.netty.channel.embedded.EmbeddedChannel} stands for the connection, and
 * the bytes it writes are decoded again by the client decoder.
 */
@Timeout(30)
class PartitionRequestQueueTest {

    private static final InputChannelId RECEIVER = new InputChannelId(1, 1);
    private static final InputChannelId OTHER_RECEIVER = new InputChannelId(2, 2);

    private final PartitionFixture fixture = new PartitionFixture();
    private final ServerConnection connection = new ServerConnection(fixture.manager(), false, RECEIVER,
            OTHER_RECEIVER);

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        connection.close();
        fixture.close();
    }

    // A producer emitting while its environment closes (chaos seed 112): the notification that its subpartition has
    // data finds the connection's event loop shut down
    @Test
    void notificationAfterTheEventLoopShutDown_isDropped_notThrownIntoTheProducer() throws Exception {
        DefaultEventExecutor shutDown = new DefaultEventExecutor();
        shutDown.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        EmbeddedChannel channel = new EmbeddedChannel();
        ChannelHandlerContext context = mock(ChannelHandlerContext.class);
        when(context.executor()).thenReturn(shutDown);
        when(context.channel()).thenReturn(channel);
        PartitionRequestQueue queue = new PartitionRequestQueue(new TransportMetrics());
        queue.handlerAdded(context);
        CreditBasedViewReader reader = new CreditBasedViewReader(RECEIVER, ResultPartitionId.random(), 0, 1, queue);

        assertDoesNotThrow(() -> queue.notifyReaderNonEmpty(reader));
        assertDoesNotThrow(() -> queue.notifyReaderNonEmpty(reader), "and again, for a later buffer");
        channel.finishAndReleaseAll();
    }

    // PRQ-3
    @Test
    void oneBufferAndAmpleCredit_exactlyOneBufferResponse_thenNothing() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 1);

        connection.send(request(partition, 0, RECEIVER, 100));

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(1, sent.size());
        assertSent(sent.get(0), RECEIVER, 0, 0, 0);
        connection.runPendingTasks();
        connection.assertNothingWritten();
        CreditBasedViewReader reader = connection.reader(RECEIVER);
        assertEquals(99, reader.credit());
        assertFalse(reader.isQueued(), "nothing left to send");
        assertEquals(1, connection.metrics().buffersSent());
        assertEquals(PartitionFixture.DEFAULT_SEGMENT_SIZE, connection.metrics().bytesSent());
    }

    // PRQ-4
    @Test
    void eventAtTheHead_goesOutWithoutCredit_andTheDataBehindItWaitsForCredit() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        partition.broadcastEvent(ByteBuffer.wrap("watermark".getBytes(StandardCharsets.UTF_8)), false);
        emitOneBufferRecords(partition, 0, 1);

        connection.send(request(partition, 0, RECEIVER, 0));

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(1, sent.size(), "only the event");
        assertEquals(DataType.EVENT_BUFFER, sent.get(0).dataType());
        assertArrayEquals(userEventBytes("watermark"), sent.get(0).payload());
        CreditBasedViewReader reader = connection.reader(RECEIVER);
        assertEquals(0, reader.credit(), "the event used no credit");
        assertFalse(reader.isQueued(), "data without credit is not queued");

        connection.send(new AddCredit(1, RECEIVER));

        sent = connection.writtenBuffers();
        assertEquals(1, sent.size());
        assertSent(sent.get(0), RECEIVER, 1, 0, 0);
    }

    // PRQ-5
    @Test
    void zeroCredit_threeAddCreditsWhileBlocked_readerQueuedOnce_thenExactlyThreeBuffersOnUnblock() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 5);
        connection.send(request(partition, 0, RECEIVER, 0));
        CreditBasedViewReader reader = connection.reader(RECEIVER);
        assertFalse(reader.isQueued(), "data without credit is not queued");
        connection.assertNothingWritten();

        connection.setWritable(false);
        for (int credit = 1; credit <= 3; credit++) {
            connection.send(new AddCredit(1, RECEIVER));
            assertEquals(credit, reader.credit());
            assertTrue(reader.isQueued());
            assertEquals(1, connection.queue().availableReaderCount(), "queued once after " + credit + " AddCredit");
        }
        connection.assertNothingWritten();

        connection.setWritable(true);

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(3, sent.size());
        for (int i = 0; i < 3; i++) {
            assertSent(sent.get(i), RECEIVER, i, i, 4 - i);
        }
        assertEquals(0, reader.credit());
        assertFalse(reader.isQueued(), "data is pending but the credit is used up");
        assertEquals(0, connection.queue().availableReaderCount());
        assertEquals(2, partition.subpartition(0).getNumberOfQueuedBuffers(), "two buffers wait for credit");
    }

    // PRQ-5: credit beyond Integer.MAX_VALUE is a protocol error of that receiver (no client owns that many
    // buffers): its reader is failed with a message naming the numbers, the partition stays for the others
    @Test
    void addCreditOverflowingTheReadersCounter_failsThatReceiverAsAProtocolError_andKeepsThePartition()
            throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        connection.send(request(partition, 0, RECEIVER, 5));
        CreditBasedViewReader reader = connection.reader(RECEIVER);

        connection.send(new AddCredit(Integer.MAX_VALUE, RECEIVER));

        ErrorResponse error = assertInstanceOf(ErrorResponse.class, connection.writtenOnce());
        assertEquals(RECEIVER, error.receiverId());
        assertTrue(error.message().contains("credit overflow"), error.message());
        assertTrue(error.message().contains(String.valueOf(Integer.MAX_VALUE)), error.message());
        assertTrue(error.message().contains("5"), error.message());
        assertTrue(reader.isReleased(), "the broken receiver's reader is released");
        assertNull(connection.reader(RECEIVER), "and forgotten");
        assertFalse(partition.isReleased(), "the partition itself is not harmed");
    }

    // PRQ-2
    @Test
    void whileUnwritable_nothingIsWritten_thenAnEmptyReaderDoesNotStallOneWithFiveBuffers() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 5);
        connection.setWritable(false);
        CreditBasedViewReader emptyReader = new CreditBasedViewReader(OTHER_RECEIVER, ResultPartitionId.random(), 0,
                5, connection.queue());
        connection.queue().register(emptyReader);
        emptyReader.setView(new AvailableButEmptyView());
        emptyReader.notifyDataAvailable();
        connection.runPendingTasks();
        connection.send(request(partition, 0, RECEIVER, 5));

        connection.assertNothingWritten();
        assertEquals(2, connection.queue().availableReaderCount(), "both readers wait for writability");

        connection.setWritable(true);

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(5, sent.size());
        for (int i = 0; i < 5; i++) {
            assertSent(sent.get(i), RECEIVER, i, i, 4 - i);
        }
        assertEquals(0, connection.queue().availableReaderCount());
    }

    // PRQ-1
    @Test
    void producerFailure_answersTheReceiverWithProducerFailed_carryingTheCausesMessage() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 2);
        connection.send(request(partition, 0, RECEIVER, 0));

        partition.fail(new IOException("disk on fire"));
        connection.runPendingTasks();

        ErrorResponse error = assertInstanceOf(ErrorResponse.class, connection.writtenOnce());
        assertEquals(ErrorKind.PRODUCER_FAILED, error.kind());
        assertEquals(RECEIVER, error.receiverId());
        assertTrue(error.message().contains("disk on fire"), error.message());
        assertTrue(error.message().contains(partition.partitionId().toString()), error.message());
        ProducerFailedException raised = assertInstanceOf(ProducerFailedException.class,
                error.toException(connection.channel().remoteAddress()));
        assertEquals(error.message(), raised.getMessage());
        assertNull(connection.reader(RECEIVER), "the failed reader is forgotten");
    }

    // PRQ-8
    @Test
    void cancel_ofAQueuedAndOfAnUnqueuedReader_releasesTheirViews_theirPartitionStays() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        emitOneBufferRecords(partition, 0, 2);
        emitOneBufferRecords(partition, 1, 2);
        connection.send(request(partition, 0, RECEIVER, 0));
        connection.setWritable(false);
        connection.send(request(partition, 1, OTHER_RECEIVER, 2));
        assertFalse(connection.reader(RECEIVER).isQueued());
        assertTrue(connection.reader(OTHER_RECEIVER).isQueued());

        connection.send(new CancelPartitionRequest(RECEIVER), new CancelPartitionRequest(OTHER_RECEIVER),
                new CancelPartitionRequest(new InputChannelId(9, 9)));
        connection.setWritable(true);

        connection.assertNothingWritten();
        assertNull(connection.reader(RECEIVER));
        assertNull(connection.reader(OTHER_RECEIVER));
        assertEquals(0, connection.queue().availableReaderCount());
        assertTrue(partition.subpartition(0).isReleased(), "the cancelled reader's data is dropped");
        assertTrue(partition.subpartition(1).isReleased());
        assertFalse(partition.isReleased(), "the partition itself stays");
    }

    // SRV-4
    @Test
    void cancelTwice_thenConnectionClose_releasesTheViewExactlyOnce() {
        CreditBasedViewReader reader = new CreditBasedViewReader(RECEIVER, ResultPartitionId.random(), 0, 2,
                connection.queue());
        AvailableButEmptyView view = new AvailableButEmptyView();
        connection.queue().register(reader);
        reader.setView(view);

        connection.send(new CancelPartitionRequest(RECEIVER));
        connection.send(new CancelPartitionRequest(RECEIVER));
        connection.closeConnection();

        assertEquals(1, view.releases);
        assertNull(connection.reader(RECEIVER));
    }

    // PRQ-4 (the end of the partition is an event too), CH-8 (server part: a finished reader is gone)
    @Test
    void endOfPartition_goesOutWithoutCredit_andTheReaderIsDoneAndTheFinishedPartitionReleased() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 1);
        partition.finish();

        connection.send(request(partition, 0, RECEIVER, 1));

        assertOneBufferThenItsEnd(connection.writtenBuffers());
        assertNull(connection.reader(RECEIVER), "a reader read to its end is removed");
        assertTrue(partition.isReleased(), "every subpartition was read: the partition let go of its memory");
    }

    // PRQ-4, CH-8: a partition counts as consumed only once its end has left the server for the socket
    @Test
    void endOfPartitionStillInTheOutboundBuffer_keepsThePartition_untilTheSocketTookIt() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 1);
        partition.finish();
        connection.holdFlushes(true);

        connection.send(request(partition, 0, RECEIVER, 1));

        assertNull(connection.reader(RECEIVER), "a reader that wrote its end of partition is done");
        assertFalse(partition.isReleased(), "the last buffer and the end of partition still wait in the outbound "
                + "buffer: a producer that closed its environment now would drop them");
        assertTrue(fixture.manager().registeredPartitionIds().contains(partition.partitionId()),
                "still registered while unwritten");
        connection.holdFlushes(false);
        assertOneBufferThenItsEnd(connection.writtenBuffers());
        assertTrue(partition.isReleased(), "written to the socket: now the partition is consumed and released");
    }

    // CH-8: the end of partition never written (the connection closed first) still releases the partition
    @Test
    void connectionClosedWithTheEndOfPartitionUnwritten_releasesThePartitionAndEveryBuffer() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 0, 2);
        partition.finish();
        connection.holdFlushes(true);
        connection.send(request(partition, 0, RECEIVER, 2));
        assertFalse(partition.isReleased());

        connection.closeConnection();

        assertTrue(partition.isReleased(), "the write failed: the reader lets go of its view all the same");
        assertEquals(0, connection.writtenBuffers().size(), "nothing reached the socket");
    }

    // PRQ-5 (coalescing: one flush per event-loop pass)
    @Test
    void manyProducerNotificationsBeforeTheEventLoopRuns_areServedInOnePassWithOneFlush() throws Exception {
        ResultPartition partition = fixture.setUpPartition(1);
        connection.send(request(partition, 0, RECEIVER, 20));
        int flushesBefore = connection.flushes();

        for (int i = 0; i < 10; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
            partition.flush(0);
        }
        connection.runPendingTasks();

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(10, sent.size());
        for (int i = 0; i < 10; i++) {
            assertSent(sent.get(i), RECEIVER, i, i, 9 - i);
        }
        assertEquals(1, connection.flushes() - flushesBefore, "one flush for the whole pass");
        assertEquals(10, connection.reader(RECEIVER).credit());
    }

    // A consumer's client sends the credit of many channels in one write, which reaches the server as one read: one
    // write pass and one flush for all of it, not one per AddCredit (each flush is a writev of its own)
    @Test
    void creditForTwoReceiversInOneRead_isServedInOnePassWithOneFlush() throws Exception {
        ResultPartition partition = fixture.setUpPartition(2);
        emitOneBufferRecords(partition, 0, 3);
        emitOneBufferRecords(partition, 1, 3);
        connection.send(request(partition, 0, RECEIVER, 0), request(partition, 1, OTHER_RECEIVER, 0));
        connection.assertNothingWritten();
        int flushesBefore = connection.flushes();

        connection.send(new AddCredit(1, RECEIVER), new AddCredit(2, OTHER_RECEIVER), new AddCredit(1, RECEIVER));

        assertEquals(1, connection.flushes() - flushesBefore, "one flush for the read's three AddCredit");
        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(4, sent.size(), "every buffer the credit allows: " + sent);
        int[] perReceiver = new int[2];
        for (ServerConnection.Sent buffer : sent) {
            int subpartition = buffer.receiverId().equals(RECEIVER) ? 0 : 1;
            int index = perReceiver[subpartition]++;
            assertSent(buffer, buffer.receiverId(), subpartition, index, index, 2 - index);
        }
        assertEquals(2, perReceiver[0]);
        assertEquals(2, perReceiver[1]);
        assertEquals(0, connection.reader(RECEIVER).credit());
        assertEquals(0, connection.reader(OTHER_RECEIVER).credit());
    }

    // PRQ-4, PRQ-5: the credit invariant under random interleavings
    @Test
    void randomDataCreditAndWritability_noDataBufferBeyondTheCreditGranted_everyRecordArrivesInOrder()
            throws Exception {
        Random random = new Random(20240611);
        ResultPartition partition = fixture.newPartition().buffers(2, 48).setUp();
        int initialCredit = 2;
        connection.send(request(partition, 0, RECEIVER, initialCredit));
        long creditGranted = initialCredit;
        long dataSent = 0;
        List<byte[]> records = new ArrayList<>();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        List<ServerConnection.Sent> all = new ArrayList<>();

        for (int step = 0; step < 2000; step++) {
            int action = random.nextInt(10);
            if (action < 5 && partition.subpartition(0).getNumberOfQueuedBuffers() < 30) {
                byte[] record = TestRecords.recordBytes(1, records.size(), random.nextInt(150));
                records.add(record);
                partition.emitRecord(ByteBuffer.wrap(record), 0);
                if (random.nextBoolean()) {
                    partition.flush(0);
                }
                connection.runPendingTasks();
            } else if (action < 8) {
                int credit = 1 + random.nextInt(3);
                creditGranted += credit;
                connection.send(new AddCredit(credit, RECEIVER));
            } else {
                connection.setWritable(!connection.channel().isWritable());
            }
            for (ServerConnection.Sent sent : connection.writtenBuffers()) {
                all.add(sent);
                if (sent.dataType() == DataType.DATA_BUFFER) {
                    dataSent++;
                    received.writeBytes(sent.payload());
                }
            }
            assertTrue(dataSent <= creditGranted, "step " + step + ": " + dataSent + " data buffers sent for "
                    + creditGranted + " credit");
        }
        partition.finish();
        connection.setWritable(true);
        connection.send(new AddCredit(1000, RECEIVER));
        for (ServerConnection.Sent sent : connection.writtenBuffers()) {
            all.add(sent);
            if (sent.dataType() == DataType.DATA_BUFFER) {
                received.writeBytes(sent.payload());
            }
        }

        List<byte[]> decoded = TestRecords.decodeFramed(received.toByteArray());
        assertEquals(records.size(), decoded.size());
        for (int i = 0; i < records.size(); i++) {
            assertArrayEquals(records.get(i), decoded.get(i), "record " + i);
        }
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i).sequenceNumber(), "sequence numbers count every buffer and event");
        }
        assertArrayEquals(eventBytes(EventSerializer.endOfPartition(received.size())), all.get(all.size() - 1).payload(),
                "the end of partition counts every data byte written");
    }

    // ------------------------------------------------------------------------------------------------------------

    /** Exactly one full data buffer (sequence number 0), then the end of partition counting its bytes. */
    private static void assertOneBufferThenItsEnd(List<ServerConnection.Sent> sent) {
        assertEquals(2, sent.size());
        assertSent(sent.get(0), RECEIVER, 0, 0, 0);
        assertEquals(DataType.EVENT_BUFFER, sent.get(1).dataType());
        assertEquals(1, sent.get(1).sequenceNumber());
        assertArrayEquals(eventBytes(EventSerializer.endOfPartition(PartitionFixture.DEFAULT_SEGMENT_SIZE)),
                sent.get(1).payload(), "the end carries the one buffer's data bytes");
    }

    private static PartitionRequest request(ResultPartition partition, int subpartition, InputChannelId receiver,
                                            int credit) {
        return new PartitionRequest(partition.partitionId(), subpartition, receiver, credit);
    }

    /** {@code count} records of one full buffer each into {@code subpartition}, then a flush. */
    private static void emitOneBufferRecords(ResultPartition partition, int subpartition, int count)
            throws IOException {
        for (int i = 0; i < count; i++) {
            partition.emitRecord(TestRecords.record(subpartition, i, PartitionFixture.ONE_BUFFER_RECORD), subpartition);
        }
        partition.flush(subpartition);
    }

    /** The buffer carries record {@code record} of {@link #emitOneBufferRecords} and the expected header. */
    private static void assertSent(ServerConnection.Sent sent, InputChannelId receiver, int sequenceNumber,
                                   int record, int backlog) {
        assertSent(sent, receiver, 0, sequenceNumber, record, backlog);
    }

    /** As above, for a record of {@code subpartition}. */
    private static void assertSent(ServerConnection.Sent sent, InputChannelId receiver, int subpartition,
                                   int sequenceNumber, int record, int backlog) {
        assertEquals(receiver, sent.receiverId());
        assertEquals(DataType.DATA_BUFFER, sent.dataType());
        assertEquals(sequenceNumber, sent.sequenceNumber());
        assertEquals(backlog, sent.backlog(), "backlog announced with buffer " + sequenceNumber);
        assertArrayEquals(TestRecords.framed(List.of(
                        TestRecords.recordBytes(subpartition, record, PartitionFixture.ONE_BUFFER_RECORD))),
                sent.payload(), "payload of buffer " + sequenceNumber);
    }

    private static byte[] userEventBytes(String payload) {
        return eventBytes(EventSerializer.userEvent(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8))));
    }

    /** The bytes of an event buffer; the buffer is recycled. */
    private static byte[] eventBytes(Buffer event) {
        try {
            return TestBuffers.readableBytes(event);
        } finally {
            event.recycleBuffer();
        }
    }

    /**
     * A view that says it has something to send and then has nothing (as a view whose data was taken meanwhile);
     * counts its releases. Event loop.
     */
    private static final class AvailableButEmptyView implements ResultSubpartitionView {

        private int releases;

        @Override
        public BufferAndBacklog getNextBuffer() {
            return null;
        }

        @Override
        public boolean isAvailable(int credits) {
            return true;
        }

        @Override
        public int getBacklog() {
            return 0;
        }

        @Override
        public void resumeConsumption() {
        }

        @Override
        public void releaseAllResources() {
            releases++;
        }

        @Override
        public boolean isReleased() {
            return false;
        }

        @Override
        public Throwable getFailureCause() {
            return null;
        }
    }
}
