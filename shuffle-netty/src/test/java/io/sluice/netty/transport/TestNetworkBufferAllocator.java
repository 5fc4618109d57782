package io.sluice.netty.transport;

import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.gate.InputChannelId;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Test double for the receiving side: hands out a fresh one-segment off-heap buffer for each data payload of a known
 * receiver (null for an unknown one) and a heap buffer for each event, and remembers every buffer it handed out.
 */
final class TestNetworkBufferAllocator implements NetworkBufferAllocator {

    private final Predicate<InputChannelId> known;
    private final int segmentSize;
    private final AtomicInteger recycled = new AtomicInteger();
    private final BufferRecycler recycler = segment -> recycled.incrementAndGet();
    private final List<Buffer> handedOut = new ArrayList<>();
    private final List<InputChannelId> pooledRequests = new ArrayList<>();
    private int eventRequests;

    TestNetworkBufferAllocator(InputChannelId... knownReceivers) {
        this(TestBuffers.SEGMENT_SIZE, knownReceivers);
    }

    TestNetworkBufferAllocator(int segmentSize, InputChannelId... knownReceivers) {
        this(segmentSize, Set.of(knownReceivers)::contains);
    }

    /** @param known which receivers get a buffer for their data; the others get null */
    TestNetworkBufferAllocator(int segmentSize, Predicate<InputChannelId> known) {
        this.segmentSize = segmentSize;
        this.known = known;
    }

    @Override
    public Buffer allocatePooledNetworkBuffer(InputChannelId receiverId) {
        pooledRequests.add(receiverId);
        if (!known.test(receiverId)) {
            return null;
        }
        Buffer buffer = new Buffer(MemorySegment.allocateOffHeap(segmentSize), recycler);
        handedOut.add(buffer);
        return buffer;
    }

    @Override
    public Buffer allocateUnPooledNetworkBuffer(int size, DataType dataType) {
        eventRequests++;
        Buffer buffer = new Buffer(MemorySegment.wrap(new byte[size]), recycler, false, 0);
        handedOut.add(buffer);
        return buffer;
    }

    /** Every buffer handed out, in order. */
    List<Buffer> handedOut() {
        return handedOut;
    }

    /** The receivers data buffers were asked for, in order (known or not). */
    List<InputChannelId> pooledRequests() {
        return pooledRequests;
    }

    int eventRequests() {
        return eventRequests;
    }

    /** Buffers handed out and recycled since. */
    int recycled() {
        return recycled.get();
    }
}
