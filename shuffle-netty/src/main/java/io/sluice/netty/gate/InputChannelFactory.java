package io.sluice.netty.gate;

import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.config.EnvironmentConfig;
import io.sluice.netty.partition.ResultPartitionManager;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntConsumer;

/**
 * Makes the channels of an environment's gates: a local channel when the producer is this environment, a remote
 * one otherwise (or an unreachable one when the environment communicates locally only). With
 * {@code shuffle.input.local-channels=false} a producer of this environment is read by a remote channel too, over a
 * connection to this environment's own data address.
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
    private final ProducerConnections connections;
    private final IntConsumer bufferReceived;
    private final boolean localChannels;
    private final Supplier<InetSocketAddress> ownDataAddress;

    /**
     * @param connections    the transport's connections to producers (remote channels)
     * @param bufferReceived counts one buffer of the given size received by a remote channel
     * @param localChannels  whether a producer of this environment is read in-process ({@code
     *                       shuffle.input.local-channels}); false reads it over the transport
     * @param ownDataAddress this environment's data address once started (where a remote channel to a producer of
     *                       this environment connects)
     */
    public InputChannelFactory(ResourceId localResourceId, boolean localCommunicationOnly, EnvironmentConfig config,
                               ResultPartitionManager partitionManager, ScheduledExecutorService timer,
                               NetworkBufferPool networkBufferPool, ProducerConnections connections,
                               IntConsumer bufferReceived, boolean localChannels,
                               Supplier<InetSocketAddress> ownDataAddress) {
        this.localResourceId = localResourceId;
        this.localCommunicationOnly = localCommunicationOnly;
        this.config = config;
        this.partitionManager = partitionManager;
        this.timer = timer;
        this.networkBufferPool = networkBufferPool;
        this.connections = connections;
        this.bufferReceived = bufferReceived;
        this.localChannels = localChannels;
        this.ownDataAddress = ownDataAddress;
    }

    /**
     * The channel {@code index} of {@code gate}, reading {@code subpartition} of {@code partitionId}, which
     * {@code producerId} serves at {@code dataAddress} (over its connection {@code connectionIndex}).
     */
    public InputChannel create(SingleInputGate gate, int index, ResultPartitionId partitionId, int subpartition,
                               ResourceId producerId, InetSocketAddress dataAddress, int connectionIndex) {
        boolean ownProducer = producerId.equals(localResourceId);
        if (ownProducer && localChannels) {
            return new LocalInputChannel(gate, index, partitionId, subpartition, partitionManager, timer,
                    newBackoff());
        }
        if (ownProducer) {
            // The descriptor's address may be null (a producer that communicates locally only): connect to the
            // address this environment actually serves.
            return remote(gate, index, partitionId, subpartition,
                    new ConnectionId(ownDataAddress.get(), connectionIndex, producerId));
        }
        if (localCommunicationOnly) {
            return new UnreachableInputChannel(gate, index, partitionId, subpartition,
                    "its producer " + producerId + " at " + dataAddress
                            + " is another environment, and environment " + localResourceId
                            + " was created with localCommunicationOnly (no transport); create it without that flag");
        }
        return remote(gate, index, partitionId, subpartition,
                new ConnectionId(dataAddress, connectionIndex, producerId));
    }

    private RemoteInputChannel remote(SingleInputGate gate, int index, ResultPartitionId partitionId, int subpartition,
                                      ConnectionId connectionId) {
        return new RemoteInputChannel(gate, index, partitionId, subpartition, connectionId, connections, timer,
                networkBufferPool, bufferReceived, config.buffersPerChannel(), newBackoff());
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
