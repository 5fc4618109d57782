package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * The unchecked small-record write: what it writes, where, and what it refuses before writing anything; and the
 * checked path a JVM without {@code sun.misc.Unsafe} takes instead, which must write the same bytes.
 */
class RawMemoryTest {

    private static final int SEGMENT_BYTES = 1024;

    @Test
    void isAvailable_onTheJvmsWeBuildWith() {
        // OpenJDK 17 has jdk.unsupported; if this fails, the producers silently took the slower checked path.
        assertTrue(RawMemory.AVAILABLE, "sun.misc.Unsafe should be usable on this JVM");
    }

    @Test
    void putPrefixedSmall_writesTheBigEndianPrefixThenTheBytes_atTheAddress() {
        ByteBuffer target = ByteBuffer.allocateDirect(32);
        byte[] source = {9, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13};

        RawMemory.putPrefixedSmall(RawMemory.address(target) + 5, 0x0A0B0C0D, source, 1, 11);

        byte[] written = new byte[32];
        target.get(0, written);
        byte[] expected = new byte[32];
        expected[5] = 0x0A;
        expected[6] = 0x0B;
        expected[7] = 0x0C;
        expected[8] = 0x0D;
        System.arraycopy(source, 1, expected, 9, 11);
        assertArrayEquals(expected, written);
    }

    @Test
    void putPrefixedSmall_aSourceRangeOutsideTheArray_throwsBeforeWriting() {
        ByteBuffer target = ByteBuffer.allocateDirect(16);

        assertThrows(IndexOutOfBoundsException.class,
                () -> RawMemory.putPrefixedSmall(RawMemory.address(target), 7, new byte[8], 4, 8));

        assertEquals(0, target.getLong(0), "nothing written");
    }

    @Test
    void address_ofAHeapBuffer_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RawMemory.address(ByteBuffer.allocate(8)));
        assertTrue(e.getMessage().contains("heap buffer"), e.getMessage());
    }

    // BB-8 without sun.misc.Unsafe: the checked fallback frames every record exactly as the raw writes do
    @Test
    void checkedFallback_writesTheSameBytesAsTheRawWrites_forRecordsOf0To24Bytes() {
        MemorySegment rawSegment = MemorySegment.allocateOffHeap(SEGMENT_BYTES);
        MemorySegment checkedSegment = MemorySegment.allocateOffHeap(SEGMENT_BYTES);
        BufferBuilder raw = new BufferBuilder(rawSegment, segment -> { }, true);
        BufferBuilder checked = new BufferBuilder(checkedSegment, segment -> { }, false);
        assertTrue(raw.usesRawWrites(), "the raw builder writes small records through RawMemory");
        assertFalse(checked.usesRawWrites(), "the fallback builder keeps to the checked path");
        byte[] backing = new byte[64];
        for (int i = 0; i < backing.length; i++) {
            backing[i] = (byte) (i * 37 + 11);
        }

        ByteBuffer expected = ByteBuffer.allocate(SEGMENT_BYTES);
        for (int length = 0; length <= 24; length++) {
            // A slice at an odd array offset with its position past its start: the record is [position, limit).
            ByteBuffer record = ByteBuffer.wrap(backing, 5, 40).slice();
            record.position(length % 3).limit(length % 3 + length);
            int prefix = 0x0A0B0C00 | length;

            assertTrue(raw.appendPrefixedAndCommit(prefix, record));
            assertTrue(checked.appendPrefixedAndCommit(prefix, record));

            expected.putInt(prefix).put(backing, 5 + length % 3, length);
        }

        assertEquals(expected.position(), raw.getCommittedBytes());
        assertEquals(expected.position(), checked.getCommittedBytes());
        for (int i = 0; i < expected.position(); i++) {
            assertEquals(expected.get(i), rawSegment.get(i), "raw writes, byte " + i);
            assertEquals(expected.get(i), checkedSegment.get(i), "checked fallback, byte " + i);
        }
        raw.close();
        checked.close();
    }
}
