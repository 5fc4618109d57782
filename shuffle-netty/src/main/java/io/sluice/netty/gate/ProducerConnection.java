package io.sluice.netty.gate;

import io.sluice.api.ResultPartitionId;

import java.nio.ByteBuffer;

/**
 * What a {@link RemoteInputChannel} needs of the connection to its producer: send its partition request, its
 * credit, its task events, its resume-consumption and its buffer size, and let go of the connection. The transport
 * implements it (one shared, counted connection per {@link ConnectionId}); the gate package never sees Netty.
 *
 * <p>Any thread; an implementation hands every message to its connection's event loop and never blocks.
 */
public interface ProducerConnection {

    /**
     * Registers {@code inputChannel} with the connection and sends its partition request with
     * {@code initialCredit}. A failed send fails that channel only ({@link RemoteInputChannel#onError}).
     */
    void requestSubpartition(ResultPartitionId partitionId, int subpartitionIndex, RemoteInputChannel inputChannel,
                             int initialCredit);

    /** The channel has unannounced credit; many calls coalesce into few messages. */
    void notifyCreditAvailable(RemoteInputChannel inputChannel);

    /** Sends a consumer's task event to the producer of {@code partitionId}; the connection owns {@code event}. */
    void sendTaskEvent(ResultPartitionId partitionId, ByteBuffer event, RemoteInputChannel inputChannel);

    /** Tells the producer that {@code inputChannel} resumes after a blocking event. */
    void resumeConsumption(RemoteInputChannel inputChannel);

    /**
     * Tells the producer that {@code inputChannel} wants buffers of at most {@code bufferSize} bytes from now on
     * (buffer debloating). A failed send fails that channel only.
     */
    void announceBufferSize(RemoteInputChannel inputChannel, int bufferSize);

    /**
     * The channel lets go of the connection (its reference): the last one closes it; another one cancels its
     * subpartition at the producer when {@code cancel}.
     */
    void close(RemoteInputChannel inputChannel, boolean cancel);
}
