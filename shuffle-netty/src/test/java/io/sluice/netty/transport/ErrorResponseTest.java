package io.sluice.netty.transport;

import io.sluice.api.CorruptDataException;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How failures become ErrorResponses on the server, and exceptions again on the client. */
class ErrorResponseTest {

    private static final ResultPartitionId PARTITION = new ResultPartitionId(10, 20);
    private static final InputChannelId RECEIVER = new InputChannelId(30, 40);
    private static final InetSocketAddress PRODUCER = new InetSocketAddress("10.0.0.7", 35000);

    @Test
    void partitionNotFound_carriesThePartitionId_andBecomesPartitionNotFoundAgain() {
        ErrorResponse response = ErrorResponse.of(new PartitionNotFoundException(PARTITION), RECEIVER);

        assertEquals(ErrorKind.PARTITION_NOT_FOUND, response.kind());
        assertEquals(PARTITION, response.partitionId());
        assertEquals("Partition " + PARTITION + " not found", response.message());
        PartitionNotFoundException raised =
                assertInstanceOf(PartitionNotFoundException.class, response.toException(PRODUCER));
        assertEquals(PARTITION, raised.partitionId());
        assertTrue(raised.getMessage().contains(PRODUCER.toString()), raised.getMessage());
    }

    @Test
    void producerFailure_becomesProducerFailedException_withTheSameMessage() {
        ErrorResponse response = ErrorResponse.of(new ProducerFailedException("Producer failed: disk full"), RECEIVER);

        assertEquals(ErrorKind.PRODUCER_FAILED, response.kind());
        Throwable raised = response.toException(PRODUCER);
        assertInstanceOf(ProducerFailedException.class, raised);
        assertEquals("Producer failed: disk full", raised.getMessage());
    }

    @Test
    void corruptData_becomesCorruptDataException_withTheSameMessage_andWhoReportedIt() {
        String damaged = "subpartition 0 of blocking partition " + PARTITION + " is damaged at offset 12 of /d/p.data";
        ErrorResponse response = ErrorResponse.of(new CorruptDataException(damaged), RECEIVER);

        assertEquals(ErrorKind.CORRUPT_DATA, response.kind());
        CorruptDataException raised = assertInstanceOf(CorruptDataException.class, response.toException(PRODUCER));
        assertEquals(damaged + " (reported by the producer at " + PRODUCER + ")", raised.getMessage());
    }

    @Test
    void otherFailure_becomesTransportException_namingTheOriginalTypeAndTheRemote() {
        ErrorResponse response = ErrorResponse.of(new IOException("queue broke"), null);

        assertEquals(ErrorKind.TRANSPORT, response.kind());
        assertTrue(response.isFatal());
        assertNull(response.partitionId());
        TransportException raised = assertInstanceOf(TransportException.class, response.toException(PRODUCER));
        assertEquals("java.io.IOException: queue broke (remote address " + PRODUCER + ")", raised.getMessage());
        assertSame(PRODUCER, raised.remoteAddress());
    }

    @Test
    void transportException_keepsItsOwnMessage_withoutTheTypeName() {
        ErrorResponse response = ErrorResponse.of(new TransportException("lost the consumer", PRODUCER), RECEIVER);

        assertEquals("lost the consumer (remote address " + PRODUCER + ")", response.message());
    }

    @Test
    void responseWithoutMessage_stillRaisesAnExceptionWithAMessage() {
        assertEquals("producer failed without a message (reported by " + PRODUCER + ")",
                new ErrorResponse(ErrorKind.PRODUCER_FAILED, null, null, RECEIVER).toException(PRODUCER).getMessage());
        assertEquals("error without a message from the server (remote address " + PRODUCER + ")",
                new ErrorResponse(ErrorKind.TRANSPORT, null, null, RECEIVER).toException(PRODUCER).getMessage());
    }

    @Test
    void responseWithAReceiver_isTargeted_notFatal() {
        ErrorResponse response = ErrorResponse.of(new IllegalStateException("x"), RECEIVER);

        assertFalse(response.isFatal());
        assertEquals(RECEIVER, response.receiverId());
    }

    @Test
    void partitionNotFound_withoutPartitionId_isRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ErrorResponse(ErrorKind.PARTITION_NOT_FOUND, "gone", null, RECEIVER));

        assertTrue(e.getMessage().contains("needs the partition id"), e.getMessage());
    }
}
