package io.sluice.netty.gate;

import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.testing.MemoryAssertions;
import io.sluice.netty.transport.TransportMetrics;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Builds gates of {@link RemoteInputChannel}s over a test's global pool, reserving their memory the way
 * {@link RemoteGateMemory} does (exclusive segments per channel, one floating pool per gate) but keeping the floating
 * pool at hand, and forwards the channel operations that are package-private to the transport tests.
 *
 * <p>A gate made here is not set up: no partition request is sent until a test calls
 * {@link #requestSubpartition(InputChannel)}. Closing the gate releases its channels and destroys its floating pool.
 * The global pool and the retry timer belong to this object; {@link #close()} ends with the leak check.
 *
 * <p>Test thread only, except the forwarded channel operations, which keep the threads their Javadoc names.
 */
public final class RemoteChannels implements AutoCloseable {

    /** The producer environment the channels' connection ids name. */
    public static final ResourceId PRODUCER = new ResourceId("test-producer");

    /** Where the channels' producer is said to live when the test connects nowhere. */
    public static final ConnectionId NOWHERE = new ConnectionId(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), 0, PRODUCER);

    /** For channels that must never connect: fails the test's request loudly. */
    public static final ProducerConnections NO_TRANSPORT = connectionId -> {
        throw new IllegalStateException("this test has no transport: the channel must not request its partition");
    };

    private final NetworkBufferPool globalPool;
    private final RecordingTimer timer = new RecordingTimer();
    private final TransportMetrics metrics = new TransportMetrics();
    private final List<SingleInputGate> gates = new ArrayList<>();
    private final Map<SingleInputGate, LocalBufferPool> floatingPools = new IdentityHashMap<>();

    private ProducerConnections clients = NO_TRANSPORT;
    private ConnectionId connection = NOWHERE;
    private Duration initialBackoff = Duration.ofMillis(1);
    private Duration maxBackoff = Duration.ofMillis(4);
    private IntConsumer bufferReceived = metrics::onBufferReceived;

    /** Channels over a global pool of {@code segments} segments of {@code segmentSize} bytes. */
    public RemoteChannels(int segments, int segmentSize) {
        this.globalPool = new NetworkBufferPool(segments, segmentSize);
    }

    /** The pool the channels' exclusive buffers and the gates' floating pools come from. */
    public NetworkBufferPool globalPool() {
        return globalPool;
    }

    /** The timer that runs the channels' partition request retries, and remembers their delays. */
    public RecordingTimer timer() {
        return timer;
    }

    /** Channels made from now on connect through {@code clientFactory} to {@code connectionId}. */
    public RemoteChannels connectingTo(ConnectionId connectionId, ProducerConnections connections) {
        this.connection = connectionId;
        this.clients = connections;
        return this;
    }

    /** Channels made from now on retry a partition request after these delays. */
    public RemoteChannels backoff(Duration initial, Duration max) {
        this.initialBackoff = initial;
        this.maxBackoff = max;
        return this;
    }

    /**
     * Channels made from now on also run {@code hook} with the size of each buffer they accept, on the receiving
     * thread after the buffer is queued and before the gate hears of it: where a test can hold that thread.
     */
    public RemoteChannels onBufferReceived(IntConsumer hook) {
        this.bufferReceived = ((IntConsumer) metrics::onBufferReceived).andThen(hook);
        return this;
    }

    /** The transport counters the channels update. */
    public TransportMetrics metrics() {
        return metrics;
    }

    /**
     * A gate of {@code channels} remote channels reading subpartition 0 of one partition each, every channel holding
     * {@code exclusive} exclusive buffers and sharing a floating pool of {@code floating} buffers (none for 0).
     */
    public SingleInputGate gate(int channels, int exclusive, int floating) throws IOException {
        ResultPartitionId[] partitions = new ResultPartitionId[channels];
        for (int i = 0; i < channels; i++) {
            partitions[i] = ResultPartitionId.random();
        }
        return gate(exclusive, floating, partitions);
    }

    /** Like {@link #gate(int, int, int)}, channel {@code i} reading subpartition 0 of {@code partitions[i]}. */
    public SingleInputGate gate(int exclusive, int floating, ResultPartitionId... partitions) throws IOException {
        SingleInputGate gate = new SingleInputGate("test-consumer", partitions.length, closed -> { }, Runnable::run);
        List<MemorySegment> segments = globalPool.requestUnpooledMemorySegments(partitions.length * exclusive);
        LocalBufferPool floatingPool = floating > 0 ? globalPool.createBufferPool(floating, floating) : null;
        for (int i = 0; i < partitions.length; i++) {
            RemoteInputChannel channel = new RemoteInputChannel(gate, i, partitions[i], 0, connection, clients, timer,
                    globalPool, bufferReceived, exclusive, new PartitionRequestBackoff(initialBackoff, maxBackoff));
            channel.assignBuffers(segments.subList(i * exclusive, (i + 1) * exclusive), floatingPool);
            gate.setChannel(channel);
        }
        gate.setMemory(new FloatingPoolMemory(floatingPool));
        gates.add(gate);
        floatingPools.put(gate, floatingPool);
        return gate;
    }

    /**
     * A gate of {@code channels} remote channels whose memory is reserved by its own {@link #setup()}, as the
     * environment's gates do ({@link RemoteGateMemory}: {@code exclusive} segments per channel and a floating pool
     * of {@code floating}). Not set up.
     */
    public SingleInputGate unreservedGate(int channels, int exclusive, int floating) {
        SingleInputGate gate = new SingleInputGate("test-consumer", channels, closed -> { }, Runnable::run);
        List<RemoteInputChannel> remote = new ArrayList<>();
        for (int i = 0; i < channels; i++) {
            RemoteInputChannel channel = new RemoteInputChannel(gate, i, ResultPartitionId.random(), 0, connection,
                    clients, timer, globalPool, bufferReceived, exclusive, new PartitionRequestBackoff(initialBackoff,
                    maxBackoff));
            gate.setChannel(channel);
            remote.add(channel);
        }
        gate.setMemory(new RemoteGateMemory(gate.ownerName(), remote, globalPool, exclusive, floating));
        gates.add(gate);
        return gate;
    }

    /** Closes every gate made here (idempotent): before the connections, as an engine would. */
    public void closeGates() {
        for (SingleInputGate gate : gates) {
            gate.close();
        }
    }

    /**
     * Closes every gate made here, stops the timer, and asserts that every segment is back in the global pool
     * (docs/behaviours.md H-1). Call it after everything else that holds the channels' buffers (connections, whose
     * decoders may hold one mid-frame) has let go.
     */
    @Override
    public void close() {
        closeGates();
        timer.shutdownNow();
        MemoryAssertions.assertAllSegmentsReturned(globalPool);
        globalPool.destroy();
    }

    /** The remote channel {@code index} of {@code gate}. */
    public static RemoteInputChannel channel(SingleInputGate gate, int index) {
        return (RemoteInputChannel) gate.channel(index);
    }

    /** The floating pool {@code gate} was made with, or null. */
    public LocalBufferPool floatingPool(SingleInputGate gate) {
        return floatingPools.get(gate);
    }

    /** Sends the channel's partition request (connecting first), as the gate's setup does. */
    public static void requestSubpartition(InputChannel channel) throws IOException {
        channel.requestSubpartition();
    }

    /** Releases the channel, as the gate's close does. */
    public static void release(InputChannel channel) {
        channel.releaseAllResources();
    }

    /** The channel's next buffer, or null; the caller recycles it. Consumer thread. */
    public static Buffer nextBuffer(InputChannel channel) throws IOException {
        BufferAndAvailability next = channel.getNextBuffer();
        return next == null ? null : next.buffer();
    }

    /** Whether a failure was recorded on the channel. */
    public static boolean hasError(InputChannel channel) {
        return channel.hasError();
    }

    /** Buffers the channel holds for the decoder. */
    public static int availableBuffers(RemoteInputChannel channel) {
        return channel.availableBuffers();
    }

    /** Backlog + initial credit, as last announced. */
    public static int requiredBuffers(RemoteInputChannel channel) {
        return channel.requiredBuffers();
    }

    /** Whether the channel waits for a floating buffer. */
    public static boolean isWaitingForFloatingBuffers(RemoteInputChannel channel) {
        return channel.isWaitingForFloatingBuffers();
    }

    /** The memory of a test gate: the floating pool, destroyed when the gate closes. */
    private static final class FloatingPoolMemory implements GateMemory {

        private final LocalBufferPool pool;

        FloatingPoolMemory(LocalBufferPool pool) {
            this.pool = pool;
        }

        @Override
        public void reserve() {
            // Reserved when the gate was made.
        }

        @Override
        public void release() {
            if (pool != null) {
                pool.lazyDestroy();
            }
        }
    }
}
