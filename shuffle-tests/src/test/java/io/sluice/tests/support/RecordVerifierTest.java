package io.sluice.tests.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RecordVerifierTest {

    private static final RecordSizes SIZES = RecordSizes.parse("24:1,100:5,70k:1");

    @Test
    void intactRecordsInOrder_passAndAreCountedPerChannel() {
        RecordGenerator channel3 = new RecordGenerator(3, 42, SIZES);
        RecordGenerator channel8 = new RecordGenerator(8, 42, SIZES);
        RecordVerifier verifier = new RecordVerifier("consumer 0", new int[] {3, 8});
        long bytes = 0;
        for (int i = 0; i < 50; i++) {
            ByteBuffer a = channel3.next(1000 + i);
            bytes += a.remaining();
            assertEquals(1000 + i, verifier.verify(0, a), "the carried timestamp comes back");
            ByteBuffer b = channel8.next(i);
            bytes += b.remaining();
            verifier.verify(1, direct(b));
        }
        verifier.endOfChannel(0, 50);
        verifier.endOfChannel(1, 50);
        verifier.verifyAllEnded();
        assertEquals(100, verifier.records());
        assertEquals(bytes, verifier.bytes());
        assertEquals(50, verifier.records(1));
    }

    @Test
    void verify_leavesPositionAndLimitOfTheRecord() {
        RecordGenerator generator = new RecordGenerator(0, 1, RecordSizes.fixed(64));
        ByteBuffer framed = ByteBuffer.allocate(80);
        framed.position(8).put(generator.next(5)).flip().position(8);
        RecordVerifier verifier = new RecordVerifier("g", new int[] {0});

        verifier.verify(0, framed);

        assertEquals(8, framed.position());
        assertEquals(72, framed.limit());
    }

    @Test
    void tamperedPayloadByte_failsItsChecksumAndNamesTheChannel() {
        RecordGenerator generator = new RecordGenerator(7, 1, RecordSizes.fixed(200));
        RecordVerifier verifier = new RecordVerifier("consumer 2", new int[] {5, 7});
        verifier.verify(1, generator.next(0));
        ByteBuffer record = copy(generator.next(0));
        record.put(150, (byte) (record.get(150) ^ 1));

        RecordVerificationException e = assertThrows(RecordVerificationException.class, () -> verifier.verify(1, record));

        assertTrue(e.getMessage().startsWith("consumer 2, input channel 1 (record channel 7): record 1 (200 bytes) fails its checksum"),
                e.getMessage());
        assertEquals(1, e.inputChannel());
        assertEquals(7, e.recordChannel());
    }

    @Test
    void tamperedHeader_readsAsDamageNotAsALostRecord() {
        RecordGenerator generator = new RecordGenerator(0, 1, RecordSizes.fixed(64));
        ByteBuffer record = copy(generator.next(0));
        record.putLong(4, 9); // the sequence number

        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> new RecordVerifier("g", new int[] {0}).verify(0, record));

        assertTrue(e.detail().contains("fails its checksum"), e.getMessage());
    }

    @Test
    void corruptRecordAid_damagesExactlyThatRecordAfterChecksumming() {
        RecordGenerator generator = new RecordGenerator(4, 1, SIZES);
        generator.corruptRecord(2);
        RecordVerifier verifier = new RecordVerifier("g", new int[] {4});
        verifier.verify(0, generator.next(0));
        verifier.verify(0, generator.next(0));

        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> verifier.verify(0, generator.next(0)));

        assertTrue(e.detail().startsWith("record 2 ("), e.getMessage());
        assertTrue(e.detail().contains("fails its checksum"), e.getMessage());
    }

    @Test
    void skippedRecord_isReportedAsLost() {
        RecordGenerator generator = new RecordGenerator(1, 1, SIZES);
        RecordVerifier verifier = new RecordVerifier("consumer 0", new int[] {1});
        verifier.verify(0, generator.next(0));
        generator.next(0);
        generator.next(0);

        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> verifier.verify(0, generator.next(0)));

        assertEquals("consumer 0, input channel 0 (record channel 1): expected record 1, got record 3 (2 lost)", e.getMessage());
    }

    @Test
    void repeatedRecord_isReportedAsDuplicatedOrReordered() {
        RecordGenerator generator = new RecordGenerator(0, 1, RecordSizes.fixed(30));
        RecordVerifier verifier = new RecordVerifier("g", new int[] {0});
        ByteBuffer first = copy(generator.next(0));
        verifier.verify(0, first);
        first.rewind();

        RecordVerificationException e = assertThrows(RecordVerificationException.class, () -> verifier.verify(0, first));

        assertEquals("expected record 1, got record 0 (duplicated or reordered)", e.detail());
    }

    @Test
    void recordOfAnotherChannel_isReportedAsCrossed() {
        RecordGenerator generator = new RecordGenerator(5, 1, SIZES);
        RecordVerifier verifier = new RecordVerifier("consumer 1", new int[] {1, 2});

        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> verifier.verify(1, generator.next(0)));

        assertEquals("consumer 1, input channel 1 (record channel 2): record 0 carries channel 5 (records crossed channels)",
                e.getMessage());
    }

    @Test
    void recordShorterThanTheHeader_isReported() {
        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> new RecordVerifier("g", new int[] {0}).verify(0, ByteBuffer.allocate(RecordFormat.HEADER_BYTES - 1)));

        assertEquals("record 0 is 23 bytes, shorter than the 24-byte header", e.detail());
    }

    @Test
    void channelEndingWithFewerRecordsThanSent_failsWithBothCounts() {
        RecordGenerator generator = new RecordGenerator(0, 1, SIZES);
        RecordVerifier verifier = new RecordVerifier("consumer 0", new int[] {0});
        for (int i = 0; i < 10; i++) {
            verifier.verify(0, generator.next(0));
        }

        RecordVerificationException e = assertThrows(RecordVerificationException.class, () -> verifier.endOfChannel(0, 11));

        assertEquals("ended after 10 records, but its producer sent 11", e.detail());
    }

    @Test
    void recordAfterTheEndOfItsChannel_fails() {
        RecordGenerator generator = new RecordGenerator(0, 1, RecordSizes.fixed(40));
        RecordVerifier verifier = new RecordVerifier("g", new int[] {0});
        verifier.endOfChannel(0, 0);

        RecordVerificationException e = assertThrows(RecordVerificationException.class, () -> verifier.verify(0, generator.next(0)));

        assertEquals("a record of 40 bytes arrived after the channel ended with 0 records", e.detail());
    }

    @Test
    void gateFinishedWithAChannelThatNeverEnded_namesThatChannel() {
        RecordVerifier verifier = new RecordVerifier("consumer 3", new int[] {3, 7, 11});
        verifier.endOfChannel(0, 0);
        verifier.endOfChannel(2, 0);

        RecordVerificationException e = assertThrows(RecordVerificationException.class, verifier::verifyAllEnded);

        assertEquals(1, e.inputChannel());
        assertEquals(7, e.recordChannel());
    }

    @Test
    void sameSeedAndChannel_giveTheSameBytes_otherChannelsDiffer() {
        RecordGenerator first = new RecordGenerator(2, 99, SIZES);
        RecordGenerator again = new RecordGenerator(2, 99, SIZES);
        RecordGenerator other = new RecordGenerator(3, 99, SIZES);
        int differing = 0;
        for (int i = 0; i < 20; i++) {
            byte[] a = bytes(first.next(7));
            assertArrayEquals(a, bytes(again.next(7)), "record " + i);
            byte[] b = bytes(other.next(7));
            if (a.length != b.length || !java.util.Arrays.equals(a, RecordFormat.HEADER_BYTES, a.length, b, RecordFormat.HEADER_BYTES, b.length)) {
                differing++;
            }
        }
        assertTrue(differing >= 18, "payloads of different channels should differ, " + differing + " of 20 did");
    }

    @Test
    void generatedRecords_carryChannelSequenceAndTimestamp_withSizesFromTheDistribution() {
        RecordGenerator generator = new RecordGenerator(6, 3, RecordSizes.uniform(24, 90));
        for (int i = 0; i < 200; i++) {
            ByteBuffer record = generator.next(1_000_000L + i);
            assertEquals(6, RecordFormat.channel(record));
            assertEquals(i, RecordFormat.sequence(record));
            assertEquals(1_000_000L + i, RecordFormat.timestampNanos(record));
            assertTrue(record.remaining() >= 24 && record.remaining() <= 90, "size " + record.remaining());
        }
        assertEquals(200, generator.nextSequence());
    }

    @Test
    void sizesBelowTheHeader_areRefusedWithTheMinimum() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RecordGenerator(0, 1, RecordSizes.parse("10..100")));

        assertTrue(e.getMessage().contains("record size 10"), e.getMessage());
        assertTrue(e.getMessage().contains("use at least 24"), e.getMessage());
    }

    private static ByteBuffer copy(ByteBuffer record) {
        ByteBuffer copy = ByteBuffer.allocate(record.remaining());
        copy.put(record.duplicate()).flip();
        return copy;
    }

    private static ByteBuffer direct(ByteBuffer record) {
        ByteBuffer copy = ByteBuffer.allocateDirect(record.remaining());
        copy.put(record.duplicate()).flip();
        return copy;
    }

    private static byte[] bytes(ByteBuffer record) {
        byte[] bytes = new byte[record.remaining()];
        record.duplicate().get(bytes);
        return bytes;
    }
}
