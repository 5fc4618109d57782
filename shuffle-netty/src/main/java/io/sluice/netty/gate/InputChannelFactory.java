package io.sluice.netty.gate;

import io.sluice.api.ResourceId;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.EnvironmentConfig;
import io.sluice.netty.NettyShuffleDescriptor;
import io.sluice.netty.transport.ConnectionId;
import io.sluice.netty.transport.ConnectionManager;
import io.sluice.netty.partition.ResultPartitionManager;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Makes the channels of an environment's gates: a local channel when the producer is this environment, a remote
 * one otherwise (or an unreachable one when the environment communicates locally only).
 *
 * <p>Any thread; stateless after construction.
 */
public final class InputChannelFactory {

    private final ResourceId localResourceId;
    private final boolean localCommunicationOnly;
    private final EnvironmentConfig config;
    private final ResultPartitionManager partitionManager;
    private final ScheduledExecutorService timer;
    private final NetworkBufferPool networkBufferPool;
    private final ConnectionManager connectionManager;

    public InputChannelFactory(ResourceId localResourceId, boolean localCommunicationOnly, EnvironmentConfig config,
                               ResultPartitionManager partitionManager, ScheduledExecutorService timer,
                               NetworkBufferPool networkBufferPool, ConnectionManager connectionManager) {
        this.localResourceId = localResourceId;
        this.localCommunicationOnly = localCommunicationOnly;
        this.config = config;
        this.partitionManager = partitionManager;
        this.timer = timer;
        this.networkBufferPool = networkBufferPool;
        this.connectionManager = connectionManager;
    }

    /** The channel {@code index} of {@code gate}, reading {@code subpartition} of the descriptor's partition. */
    public InputChannel create(SingleInputGate gate, int index, NettyShuffleDescriptor descriptor, int subpartition) {
        if (descriptor.producerId().equals(localResourceId)) {
            return new LocalInputChannel(gate, index, descriptor.partitionId(), subpartition, partitionManager, timer,
                    newBackoff());
        }
        if (localCommunicationOnly) {
            return new UnreachableInputChannel(gate, index, descriptor.partitionId(), subpartition,
                    "its producer " + descriptor.producerId() + " at " + descriptor.dataAddress()
                            + " is another environment, and environment " + localResourceId
                            + " was created with localCommunicationOnly (no transport); create it without that flag");
        }
        ConnectionId connectionId = new ConnectionId(descriptor.dataAddress(), descriptor.connectionIndex(),
                descriptor.producerId());
        return new RemoteInputChannel(gate, index, descriptor.partitionId(), subpartition, connectionId,
                connectionManager::clientFactory, timer, networkBufferPool, connectionManager.metrics(),
                config.buffersPerChannel(), newBackoff());
    }

    /** Gives the gate the memory its remote channels share; nothing for a gate of local channels. */
    public void attachGateMemory(SingleInputGate gate) {
        List<RemoteInputChannel> remote = new ArrayList<>();
        for (int i = 0; i < gate.numberOfInputChannels(); i++) {
            if (gate.channel(i) instanceof RemoteInputChannel channel) {
                remote.add(channel);
            }
        }
        if (!remote.isEmpty()) {
            gate.setMemory(new RemoteGateMemory(gate.ownerName(), remote, networkBufferPool,
                    config.buffersPerChannel(), config.floatingBuffersPerGate()));
        }
    }

    private PartitionRequestBackoff newBackoff() {
        return new PartitionRequestBackoff(config.initialBackoff(), config.maxBackoff());
    }
}
