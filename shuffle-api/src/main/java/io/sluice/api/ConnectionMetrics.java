package io.sluice.api;

import java.net.SocketAddress;

/**
 * A snapshot of one data connection of an environment ({@link ShuffleEnvironment#connectionMetrics()}). Immutable
 * value; any thread.
 *
 * @param remoteAddress     the peer's address (for an outgoing connection the producer's data address)
 * @param direction         who opened the connection
 * @param state             the connection's state when the snapshot was taken
 * @param creditOutstanding credit the receivers granted that the producer has not used yet: on an outgoing
 *                          connection the buffers this environment's channels have announced and still hold free,
 *                          on an incoming one the credit the server holds for its readers. 0 means the producer
 *                          must wait for the consumer (credit backpressure)
 * @param bytesSent         bytes written to the connection so far (after compression, before TLS)
 * @param bytesReceived     bytes read from the connection so far (before decompression, after TLS)
 */
public record ConnectionMetrics(SocketAddress remoteAddress, Direction direction, State state,
                                int creditOutstanding, long bytesSent, long bytesReceived) {

    /** Who opened a connection. */
    public enum Direction {
        /** This environment connected to a producer's data server: its gates receive data over it. */
        OUTGOING,
        /** A consumer connected to this environment's data server: its writers send data over it. */
        INCOMING
    }

    /** The state of a connection. */
    public enum State {
        /** Open, and the socket takes more data. */
        ACTIVE,
        /** Open, but its send buffer is full: the peer (or the network) does not keep up. */
        UNWRITABLE,
        /** Closed or closing; about to disappear from the list. */
        CLOSED
    }
}
