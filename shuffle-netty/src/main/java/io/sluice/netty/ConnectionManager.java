package io.sluice.netty;

import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.netty.partition.ResultPartitionManager;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The environment's Netty transport: the data server and the client connections.
 */
public final class ConnectionManager {

    private final ShuffleEnvironmentContext context;

    ConnectionManager(ShuffleEnvironmentContext context, EnvironmentConfig config,
                      ResultPartitionManager partitionManager) {
        this.context = context;
    }

    int start() throws IOException {
        return -1;
    }

    InetSocketAddress dataAddress() {
        return new InetSocketAddress(context.bindAddress(), 0);
    }

    long bytesSent() {
        return 0;
    }

    long bytesReceived() {
        return 0;
    }

    long buffersSent() {
        return 0;
    }

    long buffersReceived() {
        return 0;
    }

    int openConnections() {
        return 0;
    }

    void close() {
    }
}
