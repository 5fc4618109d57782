package io.sluice.netty.gate;

import java.io.IOException;

/**
 * Where a {@link RemoteInputChannel} gets the connection to its producer. The transport implements it; tests use a
 * lambda. Any thread except an event loop: it may block for the connect.
 */
@FunctionalInterface
public interface ProducerConnections {

    /**
     * The connection to {@code connectionId}, opened if needed; the caller holds one reference and gives it back
     * with {@link ProducerConnection#close}.
     *
     * @throws IOException          when the connection cannot be opened ({@code io.sluice.api.TransportException}
     *                              naming the address); the next call tries again
     * @throws InterruptedException when the calling thread is interrupted while connecting
     */
    ProducerConnection createPartitionRequestClient(ConnectionId connectionId)
            throws IOException, InterruptedException;
}
