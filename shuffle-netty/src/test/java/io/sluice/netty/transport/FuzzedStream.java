package io.sluice.netty.transport;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Test support for the decoder fuzz tests: turns one fuzzer input into a byte stream and a way to cut it into
 * reads, feeds a decoder with it, and checks the decoder's invariant on the way: every exception is a
 * {@link CorruptFrameException} (after which the decoder discards input without throwing again), every ByteBuf
 * fed in and every one the decoder allocated is released, and no allocation is larger than the bound given.
 *
 * <p>Input layout: byte 0 seeds the cut points (reads of 1 to {@value #MAX_CUT} bytes); the rest is the stream.
 */
final class FuzzedStream {

    /** Longest read the cut points make; short reads split headers and payloads at every offset. */
    static final int MAX_CUT = 300;

    /** What decoding one stream gave. */
    record Outcome(List<String> messages, String corruptFrame) {
    }

    private final byte[] wire;
    private final int seed;

    private FuzzedStream(byte[] wire, int seed) {
        this.wire = wire;
        this.seed = seed;
    }

    /** @return the stream of {@code input}, or null when the input is empty */
    static FuzzedStream of(byte[] input) {
        return input.length == 0 ? null : new FuzzedStream(Arrays.copyOfRange(input, 1, input.length), input[0]);
    }

    /** @return the bytes of the stream */
    byte[] wire() {
        return wire;
    }

    /**
     * Decodes the stream in one read and again cut at the input's points, each through a fresh pipeline, and
     * asserts both give the same messages and the same corrupt-frame error.
     *
     * @param decoder        a new decoder
     * @param describe       turns a decoded message into its text, releasing what it holds
     * @param allocationLimit the largest ByteBuf the decoder may allocate
     * @return what the stream decoded to
     */
    Outcome decodeWholeAndCut(Supplier<ChannelHandler> decoder, Function<Object, String> describe,
                              int allocationLimit) {
        Outcome whole = decode(decoder.get(), describe, allocationLimit, null);
        Outcome cut = decode(decoder.get(), describe, allocationLimit, new SplittableRandom(seed));
        assertEquals(whole, cut, "the same stream, cut into other reads, decodes differently");
        return whole;
    }

    private Outcome decode(ChannelHandler decoder, Function<Object, String> describe, int allocationLimit,
                           SplittableRandom cuts) {
        LargestAllocation allocator = new LargestAllocation();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast(decoder);
        List<ByteBuf> fed = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        String corruptFrame = null;
        int offset = 0;
        while (offset < wire.length) { // an empty stream feeds nothing (an empty ByteBuf is never released)
            int length = cuts == null ? wire.length - offset : Math.min(cuts.nextInt(1, MAX_CUT + 1), wire.length - offset);
            ByteBuf chunk = Unpooled.wrappedBuffer(wire, offset, length);
            offset += length;
            fed.add(chunk);
            try {
                channel.writeInbound(chunk);
            } catch (CorruptFrameException e) {
                assertEquals(CorruptFrameException.class, e.getClass());
                assertTrue(corruptFrame == null, "a failed decoder must discard its input, yet threw again: " + e);
                corruptFrame = e.getMessage();
            } catch (RuntimeException | Error e) {
                fail("undocumented " + e + " from the decoder (only CorruptFrameException may escape)", e);
            }
            for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
                messages.add(describe.apply(message));
            }
        }
        channel.finishAndReleaseAll();
        for (ByteBuf chunk : fed) {
            assertEquals(0, chunk.refCnt(), "a ByteBuf fed to the decoder was not released");
        }
        assertEquals(0, allocator.used(),
                "bytes the decoder allocated and did not release");
        assertTrue(allocator.largest <= allocationLimit, "the decoder allocated " + allocator.largest
                + " bytes at once; its limit is " + allocationLimit);
        return new Outcome(messages, corruptFrame);
    }

    /** Unpooled buffers, counted, remembering the largest capacity asked for. Used on the test thread. */
    private static final class LargestAllocation extends AbstractByteBufAllocator {

        private final UnpooledByteBufAllocator counted = new UnpooledByteBufAllocator(false);
        private int largest;

        LargestAllocation() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            largest = Math.max(largest, initialCapacity);
            return counted.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            largest = Math.max(largest, initialCapacity);
            return counted.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        /** @return bytes allocated and not released */
        long used() {
            return counted.metric().usedHeapMemory() + counted.metric().usedDirectMemory();
        }
    }
}
