package io.sluice.netty.gate;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.buffers.RequestCancelledException;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The memory of a gate with remote channels: {@code buffers-per-channel} exclusive segments for each remote
 * channel, taken from the global pool in one all-or-nothing request, and a floating pool of
 * {@code floating-buffers-per-gate} buffers the channels borrow from by backlog.
 *
 * <p>{@link #reserve()} runs on the consumer thread during setup, {@link #release()} on the closing thread, possibly
 * while {@link #reserve()} still waits for segments. The release never waits for the reservation: it marks this
 * memory released and cancels the waiting request, which then wakes at once, gives back what it collected and fails
 * {@code reserve()} with a {@link ShuffleException}. A reservation that completes after the release returns its
 * segments and destroys its floating pool itself. {@code this} guards {@link #released} and {@link #floatingPool}
 * and is never held while waiting.
 */
final class RemoteGateMemory implements GateMemory {

    private final String ownerName;
    private final List<RemoteInputChannel> channels;
    private final NetworkBufferPool networkBufferPool;
    private final int buffersPerChannel;
    private final int floatingBuffers;
    private final long memoryTotal;
    /** Completed by {@link #release()}: ends a reservation's wait for segments. */
    private final CompletableFuture<Void> releasedSignal = new CompletableFuture<>();

    @GuardedBy("this")
    private boolean released;
    @GuardedBy("this")
    private LocalBufferPool floatingPool;

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

    /**
     * {@inheritDoc}
     *
     * @throws ShuffleException when the gate is closed before or while this waits for segments; nothing stays
     *                          reserved
     * @throws io.sluice.api.InsufficientBuffersException when channels x buffers-per-channel + floating buffers
     *                          (counted in long) exceed the segments free or in the pool, with those numbers
     */
    @Override
    public void reserve() throws IOException {
        synchronized (this) {
            if (released) {
                throw closedDuringSetup();
            }
        }
        // In long: thousands of channels times a large buffers-per-channel overflow an int.
        long exclusive = (long) channels.size() * buffersPerChannel;
        if (!networkBufferPool.isDestroyed()
                && exclusive + floatingBuffers > networkBufferPool.getTotalNumberOfMemorySegments()) {
            throw insufficient(new IOException("the pool has " + networkBufferPool.getTotalNumberOfMemorySegments()
                    + " segments in all"));
        }
        List<MemorySegment> segments;
        try {
            segments = networkBufferPool.requestUnpooledMemorySegments((int) exclusive, releasedSignal);
        } catch (RequestCancelledException e) {
            throw closedDuringSetup();
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
        boolean closed;
        synchronized (this) {
            closed = released;
            if (!closed) {
                floatingPool = pool;
            }
        }
        if (closed) {
            // Released while the segments came in: nobody will release them but this thread.
            networkBufferPool.recycleUnpooledMemorySegments(segments);
            if (pool != null) {
                pool.lazyDestroy();
            }
            throw closedDuringSetup();
        }
        for (int i = 0; i < channels.size(); i++) {
            // A channel released meanwhile gives its segments straight back to the global pool.
            channels.get(i).assignBuffers(segments.subList(i * buffersPerChannel, (i + 1) * buffersPerChannel), pool);
        }
    }

    private ShuffleException closedDuringSetup() {
        return SingleInputGate.closedDuringSetup(ownerName);
    }

    private InsufficientBuffersException insufficient(IOException cause) {
        long required = (long) channels.size() * buffersPerChannel + floatingBuffers;
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
    public synchronized LocalBufferPool floatingPool() {
        return floatingPool;
    }

    /** Never waits: a reservation in progress is cancelled and cleans up after itself. Idempotent. */
    @Override
    public void release() {
        LocalBufferPool pool;
        synchronized (this) {
            released = true;
            pool = floatingPool;
            floatingPool = null;
        }
        releasedSignal.complete(null);
        if (pool != null) {
            // Buffers still in use return to the global pool when they are recycled.
            pool.lazyDestroy();
        }
    }
}
