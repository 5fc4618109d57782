package io.sluice.netty.transport;

import io.netty.channel.Channel;

/**
 * Stops reading from a server connection whose client is not keeping up, so that nothing the client sends can make
 * the server hold unbounded memory: reads pause while the connection is not writable (the client does not read its
 * replies: the outbound queue stays at the write-buffer high-water mark plus what one read can cause) and while
 * {@value #MAX_PARKED_REQUESTS} requests for partitions that are not registered yet are waiting (each holds a timer
 * and a listener until it is answered). Reads resume when both clear. A client that never drains stays paused and is
 * closed by the heartbeat timeout, since no frame is read from it any more.
 *
 * <p>One instance per connection, owned by its {@link PartitionRequestQueue}; event loop only.
 */
final class ServerReadThrottle {

    /** Requests of one connection that may wait for their partition at once before reading pauses. */
    static final int MAX_PARKED_REQUESTS = 1024;

    private final Channel channel;
    private int parkedRequests; // event loop

    ServerReadThrottle(Channel channel) {
        this.channel = channel;
    }

    /** A request waits for its partition to register. */
    void requestParked() {
        parkedRequests++;
        update();
    }

    /** A waiting request was answered (served, refused, or its connection went). */
    void requestUnparked() {
        parkedRequests--;
        update();
    }

    /** The connection's writability changed. */
    void writabilityChanged() {
        update();
    }

    /** Requests waiting now. */
    int parkedRequests() {
        return parkedRequests;
    }

    private void update() {
        assert channel.eventLoop().inEventLoop();
        boolean read = channel.isWritable() && parkedRequests < MAX_PARKED_REQUESTS;
        if (channel.config().isAutoRead() != read) {
            // Turning it back on asks the transport for the next read.
            channel.config().setAutoRead(read);
        }
    }
}
