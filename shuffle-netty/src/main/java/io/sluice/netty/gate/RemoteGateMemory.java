package io.sluice.netty.gate;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.ShuffleOptions;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;

import java.io.IOException;
import java.util.List;

/**
 * The memory of a gate with remote channels: {@code buffers-per-channel} exclusive segments for each remote
 * channel, taken from the global pool in one all-or-nothing request, and a floating pool of
 * {@code floating-buffers-per-gate} buffers the channels borrow from by backlog.
 *
 * <p>{@link #reserve()} runs on the consumer thread during setup; {@link #release()} on the closing thread.
 */
final class RemoteGateMemory implements GateMemory {

    private final String ownerName;
    private final List<RemoteInputChannel> channels;
    private final NetworkBufferPool networkBufferPool;
    private final int buffersPerChannel;
    private final int floatingBuffers;
    private final long memoryTotal;

    private LocalBufferPool floatingPool; // guarded by this

    RemoteGateMemory(String ownerName, List<RemoteInputChannel> channels, NetworkBufferPool networkBufferPool,
                     int buffersPerChannel, int floatingBuffers) {
        this.ownerName = ownerName;
        this.channels = channels;
        this.networkBufferPool = networkBufferPool;
        this.buffersPerChannel = buffersPerChannel;
        this.floatingBuffers = floatingBuffers;
        this.memoryTotal = (long) networkBufferPool.getTotalNumberOfMemorySegments()
                * networkBufferPool.getMemorySegmentSize();
    }

    @Override
    public synchronized void reserve() throws IOException {
        int exclusive = channels.size() * buffersPerChannel;
        List<MemorySegment> segments;
        try {
            segments = networkBufferPool.requestUnpooledMemorySegments(exclusive);
        } catch (IOException e) {
            throw insufficient(e);
        }
        LocalBufferPool pool = null;
        if (floatingBuffers > 0) {
            try {
                pool = networkBufferPool.createBufferPool(floatingBuffers, floatingBuffers);
            } catch (IOException e) {
                networkBufferPool.recycleUnpooledMemorySegments(segments);
                throw insufficient(e);
            }
        }
        floatingPool = pool;
        for (int i = 0; i < channels.size(); i++) {
            channels.get(i).assignBuffers(segments.subList(i * buffersPerChannel, (i + 1) * buffersPerChannel), pool);
        }
    }

    private InsufficientBuffersException insufficient(IOException cause) {
        int required = channels.size() * buffersPerChannel + floatingBuffers;
        return new InsufficientBuffersException("gate of " + ownerName + " needs " + required + " buffers = "
                + channels.size() + " remote channels x " + buffersPerChannel + " ("
                + ShuffleOptions.BUFFERS_PER_CHANNEL.key() + ") + " + floatingBuffers + " floating ("
                + ShuffleOptions.FLOATING_BUFFERS_PER_GATE.key() + "); free "
                + networkBufferPool.getNumberOfUnreservedMemorySegments() + " of "
                + networkBufferPool.getTotalNumberOfMemorySegments() + " segments; raise "
                + ShuffleOptions.MEMORY_TOTAL.key() + " (now " + memoryTotal + " bytes) or lower those options ("
                + cause.getMessage() + ")", cause);
    }

    @Override
    public synchronized void release() {
        if (floatingPool != null) {
            // Buffers still in use return to the global pool when they are recycled.
            floatingPool.lazyDestroy();
            floatingPool = null;
        }
    }
}
