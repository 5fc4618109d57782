package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the global pool sizes its local pools: creation limits, fair shares, exclusive segments, churn. */
class BufferPoolRedistributionTest {

    private static final int UNBOUNDED = Integer.MAX_VALUE;

    private final GlobalPools globalPools = new GlobalPools();

    @AfterEach
    void everySegmentIsBack() {
        globalPools.assertEverySegmentReturnedAndDestroy(); // H-1
    }

    private static void assertSizes(int[] expected, LocalBufferPool... pools) {
        int[] actual = new int[pools.length];
        for (int i = 0; i < pools.length; i++) {
            actual[i] = pools[i].getNumBuffers();
        }
        assertEquals(Arrays.toString(expected), Arrays.toString(actual));
    }

    // BPF-1
    @Test
    void poolWhoseMinimumExceedsTheTotal_isRefused() {
        NetworkBufferPool global = globalPools.create(10);

        IOException e = assertThrows(IOException.class, () -> global.createBufferPool(11, 20));

        assertTrue(e.getMessage().startsWith(
                "Insufficient number of network buffers: required 11, but only 10 available"), e.getMessage());
        assertTrue(e.getMessage().contains("shuffle.memory.total"), e.getMessage());
        assertEquals(0, global.getNumberOfRegisteredBufferPools());
    }

    // BPF-1
    @Test
    void secondPoolWhoseMinimumNoLongerFits_isRefused_andTheFirstIsUnaffected() throws IOException {
        NetworkBufferPool global = globalPools.create(10);
        LocalBufferPool first = global.createBufferPool(6, 10);

        IOException e = assertThrows(IOException.class, () -> global.createBufferPool(5, 10));

        assertTrue(e.getMessage().startsWith(
                "Insufficient number of network buffers: required 5, but only 4 available"), e.getMessage());
        assertTrue(e.getMessage().contains("6 are reserved by the minimums of 1 buffer pools"), e.getMessage());
        assertEquals(1, global.getNumberOfRegisteredBufferPools());
        assertEquals(10, first.getNumBuffers());
        Buffer stillServed = first.requestBuffer();
        assertNotNull(stillServed);
        stillServed.recycleBuffer();
    }

    // BPF-2
    @Test
    void newPool_takesItsShareFromAnOverfullPool_asThatPoolRecyclesItsExcess() throws IOException {
        NetworkBufferPool global = globalPools.create(10);
        LocalBufferPool first = global.createBufferPool(1, UNBOUNDED);
        List<Buffer> firstHeld = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            firstHeld.add(first.requestBuffer());
        }
        assertNull(first.requestBuffer());

        LocalBufferPool second = global.createBufferPool(1, UNBOUNDED);

        assertSizes(new int[] {5, 5}, first, second);
        assertNull(first.requestBuffer(), "an overfull pool hands out nothing more");
        List<Buffer> secondHeld = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            firstHeld.remove(0).recycleBuffer();
            assertEquals(0, global.getNumberOfAvailableMemorySegments(), "the excess went straight to the second");
            Buffer taken = second.requestBuffer();
            assertNotNull(taken);
            secondHeld.add(taken);
        }
        assertNull(second.requestBuffer());
        firstHeld.remove(0).recycleBuffer();
        assertEquals(1, first.getNumberOfAvailableMemorySegments(), "at its share the first keeps what comes back");
        firstHeld.forEach(Buffer::recycleBuffer);
        secondHeld.forEach(Buffer::recycleBuffer);
        assertEquals(5, first.getNumberOfAvailableMemorySegments());
        assertEquals(5, second.getNumberOfAvailableMemorySegments());
    }

    // BPF-3
    @Test
    void boundedPool_neverExceedsItsMax() throws IOException {
        NetworkBufferPool global = globalPools.create(20);

        LocalBufferPool bounded = global.createBufferPool(1, 5);

        assertEquals(5, bounded.getNumBuffers());
    }

    // BPF-3
    @Test
    void loneUnboundedPool_getsEverythingButAFixedPoolsShare() throws IOException {
        NetworkBufferPool global = globalPools.create(20);
        LocalBufferPool fixed = global.createBufferPool(3, 3);

        LocalBufferPool unbounded = global.createBufferPool(1, UNBOUNDED);

        assertSizes(new int[] {3, 17}, fixed, unbounded);
    }

    // BPF-3
    @Test
    void twoUnboundedPools_splitEvenly_andTheSurvivorGetsAll() throws IOException {
        NetworkBufferPool global = globalPools.create(20);
        LocalBufferPool first = global.createBufferPool(1, UNBOUNDED);
        LocalBufferPool second = global.createBufferPool(1, UNBOUNDED);
        assertSizes(new int[] {10, 10}, first, second);

        second.lazyDestroy();

        assertEquals(20, first.getNumBuffers());
        assertEquals(1, global.getNumberOfRegisteredBufferPools());
    }

    // BPF-3
    @Test
    void threeSegmentsOverThreePoolsWithMaxTen_giveExactlyOneEach() throws IOException {
        NetworkBufferPool global = globalPools.create(3);

        LocalBufferPool a = global.createBufferPool(0, 10);
        LocalBufferPool b = global.createBufferPool(0, 10);
        LocalBufferPool c = global.createBufferPool(0, 10);

        assertSizes(new int[] {1, 1, 1}, a, b, c);
    }

    // BPF-4
    @Test
    void poolsShrinkWhileExclusiveSegmentsAreOut_andGrowBackOnReturn() throws IOException {
        NetworkBufferPool global = globalPools.create(20);
        LocalBufferPool first = global.createBufferPool(2, UNBOUNDED);
        LocalBufferPool second = global.createBufferPool(2, UNBOUNDED);
        assertSizes(new int[] {10, 10}, first, second);

        List<MemorySegment> six = global.requestUnpooledMemorySegments(6);
        assertSizes(new int[] {7, 7}, first, second);
        List<MemorySegment> four = global.requestUnpooledMemorySegments(4);
        assertSizes(new int[] {5, 5}, first, second);
        global.recycleUnpooledMemorySegments(six);
        assertSizes(new int[] {8, 8}, first, second);
        global.recycleUnpooledMemorySegments(four);
        assertSizes(new int[] {10, 10}, first, second);
    }

    // BPF-4: minimum and maximum win over the even split
    @Test
    void exclusiveSegments_neverPushAPoolBelowItsMinimum_orAboveItsMax() throws IOException {
        NetworkBufferPool global = globalPools.create(20);
        LocalBufferPool unbounded = global.createBufferPool(2, UNBOUNDED);
        LocalBufferPool bounded = global.createBufferPool(1, 3);
        assertSizes(new int[] {17, 3}, unbounded, bounded);

        List<MemorySegment> most = global.requestUnpooledMemorySegments(15);
        assertSizes(new int[] {3, 2}, unbounded, bounded);
        IOException e = assertThrows(IOException.class, () -> global.requestUnpooledMemorySegments(3));
        assertTrue(e.getMessage().contains("required 3, but only 2 available"), e.getMessage());
        List<MemorySegment> rest = global.requestUnpooledMemorySegments(2);
        assertSizes(new int[] {2, 1}, unbounded, bounded);

        global.recycleUnpooledMemorySegments(most);
        global.recycleUnpooledMemorySegments(rest);
        assertSizes(new int[] {17, 3}, unbounded, bounded);
    }

    // BPF-5
    @Test
    void randomPoolMixes_sizesAlwaysSumToWhatFits_andEverySegmentComesBack() throws IOException {
        int total = 64;
        NetworkBufferPool global = globalPools.create(total);
        Random random = new Random(20240611L);
        for (int round = 0; round < 1000; round++) {
            List<LocalBufferPool> pools = new ArrayList<>();
            List<Buffer> held = new ArrayList<>();
            int sumOfMinimums = 0;
            long sumOfMaximums = 0;
            int poolCount = 1 + random.nextInt(6);
            for (int i = 0; i < poolCount; i++) {
                int min = random.nextInt(20);
                int max = random.nextInt(5) == 0 ? UNBOUNDED : Math.max(1, min + random.nextInt(30));
                if (sumOfMinimums + min > total) {
                    assertThrows(IOException.class, () -> global.createBufferPool(min, max));
                    continue;
                }
                pools.add(global.createBufferPool(min, max));
                sumOfMinimums += min;
                sumOfMaximums += max;
                int sumOfSizes = 0;
                for (LocalBufferPool pool : pools) {
                    assertTrue(pool.getNumBuffers() <= pool.getMaxNumberOfMemorySegments());
                    assertTrue(pool.getNumBuffers() >= pool.getNumberOfRequiredMemorySegments());
                    sumOfSizes += pool.getNumBuffers();
                }
                assertEquals(Math.min(total, sumOfMaximums), sumOfSizes, "round " + round);
                LocalBufferPool user = pools.get(random.nextInt(pools.size()));
                for (int n = random.nextInt(4); n > 0; n--) {
                    Buffer buffer = user.requestBuffer();
                    if (buffer != null) {
                        held.add(buffer);
                    }
                }
            }
            if (random.nextBoolean()) {
                global.destroyAllBufferPools();
            } else {
                pools.forEach(LocalBufferPool::lazyDestroy);
            }
            held.forEach(Buffer::recycleBuffer);
            assertEquals(total, global.getNumberOfAvailableMemorySegments(), "round " + round);
            assertEquals(0, global.getNumberOfRegisteredBufferPools());
        }
    }
}
