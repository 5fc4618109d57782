package io.sluice.netty.transport;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.TestRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the data server does with each client message: partition requests served at once, kept until the partition
 * registers, or answered "not found" after the wait; credit, cancellations, close requests and task events; and
 * how a connection that closes or breaks lets go of its readers (docs/behaviours.md section 10, SRV-*).
 */
@Timeout(30)
class PartitionRequestServerHandlerTest {

    private static final InputChannelId RECEIVER = new InputChannelId(1, 1);
    private static final InputChannelId OTHER_RECEIVER = new InputChannelId(2, 2);

    private final PartitionFixture fixture = new PartitionFixture();
    private final List<ServerConnection> connections = new ArrayList<>();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        for (ServerConnection connection : connections) {
            connection.close();
        }
        fixture.close();
    }

    private ServerConnection connection(boolean withDecoder) {
        ServerConnection connection = new ServerConnection(fixture.manager(), withDecoder, RECEIVER, OTHER_RECEIVER);
        connections.add(connection);
        return connection;
    }

    // SRV-1
    @Test
    void partitionNeverRegistered_isAnsweredNotFoundWhenTheWaitIsOver_carryingTheId_andNotServedLater()
            throws Exception {
        ServerConnection connection = connection(false);
        ResultPartitionId id = ResultPartitionId.random();
        connection.send(new PartitionRequest(id, 0, RECEIVER, 2));

        connection.advanceTimeBy(ServerConnection.WAIT_FOR_PARTITION_MILLIS - 1);
        connection.assertNothingWritten();
        assertNotNull(connection.reader(RECEIVER), "the request is kept while the client's backoff runs");

        connection.advanceTimeBy(1);

        ErrorResponse error = assertInstanceOf(ErrorResponse.class, connection.writtenOnce());
        assertEquals(ErrorKind.PARTITION_NOT_FOUND, error.kind());
        assertEquals(id, error.partitionId());
        assertEquals(RECEIVER, error.receiverId());
        PartitionNotFoundException raised = assertInstanceOf(PartitionNotFoundException.class,
                error.toException(connection.channel().remoteAddress()));
        assertEquals(id, raised.partitionId());
        assertNull(connection.reader(RECEIVER));

        ResultPartition late = fixture.newPartition().id(id).setUp();
        emitOneBufferRecords(late, 1);
        connection.runPendingTasks();
        connection.assertNothingWritten();
        assertEquals(1, late.subpartition(0).getNumberOfQueuedBuffers(), "nobody reads the late partition");
    }

    // SRV-1
    @Test
    void partitionRegisteredBeforeTheRequest_isServedAtOnce() throws Exception {
        ServerConnection connection = connection(false);
        requestedPartition(connection, 2, 2);

        assertEquals(List.of(0, 1), sequenceNumbers(connection.writtenBuffers()));
    }

    // SRV-1
    @Test
    void partitionRegisteredWhileTheRequestWaits_isServed_andTheWaitEndsWithoutAnError() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartitionId id = ResultPartitionId.random();
        connection.send(new PartitionRequest(id, 0, RECEIVER, 2));
        connection.advanceTimeBy(ServerConnection.WAIT_FOR_PARTITION_MILLIS / 2);

        ResultPartition partition = fixture.newPartition().id(id).setUp();
        emitOneBufferRecords(partition, 2);
        connection.runPendingTasks();

        List<ServerConnection.Sent> sent = connection.writtenBuffers();
        assertEquals(List.of(0, 1), sequenceNumbers(sent));
        assertArrayEquals(TestRecords.framed(List.of(TestRecords.recordBytes(0, 0, PartitionFixture.ONE_BUFFER_RECORD))),
                sent.get(0).payload());
        connection.advanceTimeBy(ServerConnection.WAIT_FOR_PARTITION_MILLIS);
        connection.assertNothingWritten();
        assertNotNull(connection.reader(RECEIVER), "the reader stays for more data");
    }

    // Buffer debloating (docs/contract.md section 10): the size reaches a view attached after it came.
    @Test
    void bufferSizeAnnouncedWhileTheRequestWaits_cutsThePartitionsBuffersOnceItRegisters() throws Exception {
        try (PartitionFixture largeSegments = new PartitionFixture(64, 1024)) {
            ServerConnection connection = new ServerConnection(largeSegments.manager(), false, RECEIVER,
                    OTHER_RECEIVER);
            ResultPartitionId id = ResultPartitionId.random();
            connection.send(new PartitionRequest(id, 0, RECEIVER, 2), new NewBufferSize(200, RECEIVER),
                    new NewBufferSize(100, OTHER_RECEIVER));

            ResultPartition partition = largeSegments.newPartition().id(id).setUp();
            connection.runPendingTasks(); // the event loop attaches the view to the waiting reader
            for (int i = 0; i < 5; i++) {
                partition.emitRecord(TestRecords.record(0, i, 96), 0); // 100 bytes framed
            }
            partition.flush(0);
            connection.runPendingTasks();

            List<ServerConnection.Sent> sent = connection.writtenBuffers();
            assertEquals(List.of(0, 1), sequenceNumbers(sent),
                    "buffers of 200 bytes, one per credit; no error for the unknown receiver");
            assertEquals(200, sent.get(0).payload().length);
            assertEquals(200, sent.get(1).payload().length);
            connection.close();
        }
    }

    // SRV-1 (error replies carry what was wrong)
    @Test
    void requestForASubpartitionThatDoesNotExist_isAnsweredWithAnErrorNamingIt() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = fixture.setUpPartition(1);

        connection.send(new PartitionRequest(partition.partitionId(), 3, RECEIVER, 2));

        ErrorResponse error = assertInstanceOf(ErrorResponse.class, connection.writtenOnce());
        assertEquals(ErrorKind.TRANSPORT, error.kind());
        assertEquals(RECEIVER, error.receiverId());
        assertTrue(error.message().contains("subpartition 3 does not exist"), error.message());
        assertNull(connection.reader(RECEIVER));
        assertTrue(connection.channel().isActive(), "one bad request does not close the connection");
    }

    // SRV-3
    @Test
    void clientClosesTheConnectionMidStream_everyViewOfTheConnectionIsReleased() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = fixture.setUpPartition(2);
        for (int subpartition = 0; subpartition < 2; subpartition++) {
            for (int i = 0; i < 3; i++) {
                partition.emitRecord(TestRecords.record(subpartition, i, PartitionFixture.ONE_BUFFER_RECORD), subpartition);
            }
            partition.flush(subpartition);
        }
        connection.send(new PartitionRequest(partition.partitionId(), 0, RECEIVER, 1),
                new PartitionRequest(partition.partitionId(), 1, OTHER_RECEIVER, 1));
        assertEquals(2, connection.writtenBuffers().size(), "one buffer per credit");

        connection.closeConnection();

        assertNull(connection.reader(RECEIVER));
        assertNull(connection.reader(OTHER_RECEIVER));
        assertTrue(partition.subpartition(0).isReleased());
        assertTrue(partition.subpartition(1).isReleased());
        assertEquals(0, partition.bufferPool().bestEffortGetNumOfUsedBuffers(), "the unsent data was recycled");
        assertFalse(partition.isReleased(), "the producer's partition itself stays until its producer lets go");
    }

    // SRV-3 (orderly close)
    @Test
    void closeRequest_releasesEveryReader_andClosesTheConnection() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = requestedPartition(connection, 2, 0);

        connection.send(new CloseRequest());

        assertFalse(connection.channel().isActive());
        assertNull(connection.reader(RECEIVER));
        assertTrue(partition.subpartition(0).isReleased());
        connection.assertNothingWritten();
    }

    // PRQ-5 (credit goes to the right reader only)
    @Test
    void creditForAnUnknownReceiver_isIgnored_andOthersAreNotServedWithIt() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = requestedPartition(connection, 2, 0);

        connection.send(new AddCredit(5, new InputChannelId(9, 9)));

        connection.assertNothingWritten();
        connection.channel().checkException();
        assertTrue(connection.channel().isActive());
        assertEquals(0, connection.reader(RECEIVER).credit());
    }

    // Task events (SIG-5: a TaskEventRequest reaches the producer partition's listener)
    @Test
    void taskEvent_reachesTheProducersListener_andOneForAnUnknownPartitionIsDroppedWithoutAnswer() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = fixture.setUpPartition(1);
        List<String> events = new ArrayList<>();
        partition.onTaskEvent(event -> events.add(StandardCharsets.UTF_8.decode(event).toString()));

        connection.send(new TaskEventRequest(ByteBuffer.wrap("pause".getBytes(StandardCharsets.UTF_8)),
                        partition.partitionId(), RECEIVER),
                new TaskEventRequest(ByteBuffer.wrap("lost".getBytes(StandardCharsets.UTF_8)),
                        ResultPartitionId.random(), RECEIVER));

        assertEquals(List.of("pause"), events);
        connection.assertNothingWritten();
        assertTrue(connection.channel().isActive());
    }

    // SRV-1, PRQ-5 over the wire: requests and credit arrive as bytes cut into small reads
    @Test
    void requestAndCreditAsBytesInSmallReads_areDecodedAndServed() throws Exception {
        ServerConnection connection = connection(true);
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 3);

        connection.sendBytes(5, new PartitionRequest(partition.partitionId(), 0, RECEIVER, 0),
                new AddCredit(2, RECEIVER));

        assertEquals(List.of(0, 1), sequenceNumbers(connection.writtenBuffers()));
    }

    // CTE-4 (server side: an error in the pipeline closes that connection with a reason)
    @Test
    void unexpectedPipelineError_answersAFatalError_releasesTheReaders_andClosesTheConnection() throws Exception {
        ServerConnection connection = connection(false);
        ResultPartition partition = requestedPartition(connection, 1, 0);

        connection.channel().pipeline().fireExceptionCaught(new IllegalStateException("handler bug"));
        connection.runPendingTasks();

        ErrorResponse error = assertInstanceOf(ErrorResponse.class, connection.writtenOnce());
        assertTrue(error.isFatal(), "a connection-wide error names no receiver");
        assertTrue(error.message().contains("handler bug"), error.message());
        assertInstanceOf(TransportException.class, error.toException(connection.channel().remoteAddress()));
        assertFalse(connection.channel().isActive());
        assertTrue(partition.subpartition(0).isReleased());
    }

    // Wire protocol: a corrupt frame closes that connection (with a logged reason), releasing its readers
    @Test
    void corruptFrame_closesTheConnectionWithoutAnAnswer_andReleasesItsReaders() throws Exception {
        ServerConnection connection = connection(true);
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, 1);
        connection.sendBytes(64, new PartitionRequest(partition.partitionId(), 0, RECEIVER, 0));

        ByteBuffer badMagic = ByteBuffer.allocate(10).putInt(10).putInt(0x12345678).put((byte) 1)
                .put(CloseRequest.ID);
        connection.sendRaw(badMagic.array(), 10);

        connection.assertNothingWritten();
        assertFalse(connection.channel().isActive());
        assertTrue(partition.subpartition(0).isReleased());
    }

    // ------------------------------------------------------------------------------------------------------------

    /** A partition with {@code records} one-buffer records, whose subpartition 0 RECEIVER requests with credit. */
    private ResultPartition requestedPartition(ServerConnection connection, int records, int credit)
            throws IOException {
        ResultPartition partition = fixture.setUpPartition(1);
        emitOneBufferRecords(partition, records);
        connection.send(new PartitionRequest(partition.partitionId(), 0, RECEIVER, credit));
        return partition;
    }

    /** {@code count} records of one full buffer each into subpartition 0, then a flush. */
    private static void emitOneBufferRecords(ResultPartition partition, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            partition.emitRecord(TestRecords.record(0, i, PartitionFixture.ONE_BUFFER_RECORD), 0);
        }
        partition.flush(0);
    }

    private static List<Integer> sequenceNumbers(List<ServerConnection.Sent> sent) {
        List<Integer> numbers = new ArrayList<>();
        for (ServerConnection.Sent buffer : sent) {
            assertEquals(RECEIVER, buffer.receiverId());
            assertEquals(DataType.DATA_BUFFER, buffer.dataType());
            numbers.add(buffer.sequenceNumber());
        }
        return numbers;
    }
}
