package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class RecordFramingTest {

    @Test
    void lengthBytes_areBigEndian_andAssembleBackToTheLength() {
        for (int length : new int[] {0, 1, 255, 256, 65_536, 0x01020304, RecordFraming.MAX_RECORD_LENGTH}) {
            ByteBuffer expected = ByteBuffer.allocate(RecordFraming.LENGTH_BYTES).putInt(0, length);
            int assembled = 0;
            for (int i = 0; i < RecordFraming.LENGTH_BYTES; i++) {
                byte written = RecordFraming.lengthByte(length, i);
                assertEquals(expected.get(i), written, "byte " + i + " of " + length);
                assembled = RecordFraming.appendLengthByte(assembled, written);
            }
            assertEquals(length, assembled);
        }
    }

    @Test
    void framedLength_isLengthPlusRecord_evenForTheLargestRecord() {
        assertEquals(4, RecordFraming.framedLength(0));
        assertEquals(2_147_483_651L, RecordFraming.framedLength(RecordFraming.MAX_RECORD_LENGTH));
    }
}
