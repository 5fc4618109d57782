package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The unchecked small-record write: what it writes, where, and what it refuses before writing anything. */
class RawMemoryTest {

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
}
