package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.testing.MemoryAssertions;

import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gate whose memory cannot fit the environment's pool fails setup with the real numbers, counted without overflow,
 * and takes nothing. The channels are never touched when the memory does not fit, so stand-ins (null) suffice.
 */
class RemoteGateMemoryTest {

    private static final int SEGMENTS = 16;

    private final NetworkBufferPool pool = new NetworkBufferPool(SEGMENTS, 4096);

    @AfterEach
    void everySegmentBack() {
        MemoryAssertions.assertAllSegmentsReturned(pool);
        pool.destroy();
    }

    private static List<RemoteInputChannel> channels(int count) {
        return Collections.nCopies(count, null);
    }

    @Test
    void floatingBuffersNearIntMax_reportTheRealSum_notAnOverflowedOne() {
        RemoteGateMemory memory = new RemoteGateMemory("g", channels(3), pool, 2, Integer.MAX_VALUE);

        InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, memory::reserve);

        String message = failure.getMessage();
        assertTrue(message.contains("gate of g needs 2147483653 buffers = 3 remote channels x 2 "
                + "(shuffle.buffers-per-channel) + 2147483647 floating (shuffle.floating-buffers-per-gate)"), message);
        assertTrue(message.contains("free 16 of 16 segments"), message);
        assertEquals(SEGMENTS, pool.getNumberOfAvailableMemorySegments(), "nothing kept");
    }

    @Test
    void exclusiveBuffersBeyondIntRange_reportTheRealProduct_insteadOfANegativeRequest() {
        RemoteGateMemory memory = new RemoteGateMemory("g", channels(40_000), pool, 65_536, 8);

        InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, memory::reserve);

        String message = failure.getMessage();
        assertTrue(message.contains("gate of g needs 2621440008 buffers = 40000 remote channels x 65536 "
                + "(shuffle.buffers-per-channel) + 8 floating (shuffle.floating-buffers-per-gate)"), message);
        assertTrue(message.contains("raise shuffle.memory.total"), message);
    }
}
