package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordVerificationException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Consumer 2 of 3, reading producers 0 and 1: channels 2 and 5. */
class DeliveryCheckTest {

    private static final int CONSUMERS = 3;
    private final DeliveryCheck check = new DeliveryCheck(2, 2, CONSUMERS);
    private final RecordGenerator fromProducer0 = new RecordGenerator(2, 1, RecordSizes.parse("24..300"));
    private final RecordGenerator fromProducer1 = new RecordGenerator(5, 1, RecordSizes.parse("24..300"));

    @Test
    void recordsAndTrailersOfEveryProducer_areCountedAndTimed() {
        long bytes = 0;
        for (int i = 0; i < 10; i++) {
            ByteBuffer record = fromProducer0.next(System.nanoTime());
            bytes += record.remaining();
            check.record(0, record);
        }
        ByteBuffer last = fromProducer1.next(System.nanoTime());
        bytes += last.remaining();
        check.record(1, last);
        check.event(0, StreamTrailer.encode(new long[] {7, 7, 10}));
        check.event(1, StreamTrailer.encode(new long[] {0, 0, 1}));
        check.finished();

        assertEquals(11, check.counters().records());
        assertEquals(bytes, check.counters().bytes());
        assertEquals(11, check.latency().getTotalCount());
    }

    @Test
    void tamperedRecord_failsNamingProducerAndConsumer() {
        check.record(1, fromProducer1.next(0));
        ByteBuffer tampered = fromProducer1.next(0);
        int last = tampered.limit() - 1; // payload, or the checksum itself for a 24-byte record: damage either way
        tampered.put(last, (byte) (tampered.get(last) ^ 1));

        RecordVerificationException e = assertThrows(RecordVerificationException.class, () -> check.record(1, tampered));

        assertEquals("channel producer 1 -> consumer 2, input channel 1 (record channel 5): " + e.detail(), e.getMessage());
        assertTrue(e.detail().startsWith("record 1 ("), e.detail());
    }

    @Test
    void trailerWithAnotherCount_failsNamingTheChannel() {
        check.record(0, fromProducer0.next(0));

        RecordVerificationException e = assertThrows(RecordVerificationException.class,
                () -> check.event(0, StreamTrailer.encode(new long[] {0, 0, 2})));

        assertEquals("channel producer 0 -> consumer 2, input channel 0 (record channel 2): ended after 1 records, "
                + "but its producer sent 2", e.getMessage());
    }

    @Test
    void gateFinishedWithoutATrailer_failsNamingTheChannel() {
        check.event(0, StreamTrailer.encode(new long[] {0, 0, 0}));

        RecordVerificationException e = assertThrows(RecordVerificationException.class, check::finished);

        assertEquals("channel producer 1 -> consumer 2, input channel 1 (record channel 5): the gate finished but this channel"
                + " never reported its end (after 0 records)", e.getMessage());
    }

    @Test
    void eventThatIsNoTrailer_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> check.event(1, ByteBuffer.wrap(new byte[] {1, 2, 3})));

        assertEquals("producer 1 -> consumer 2: an event of 3 bytes is not a sluice-bench trailer", e.getMessage());
    }
}
