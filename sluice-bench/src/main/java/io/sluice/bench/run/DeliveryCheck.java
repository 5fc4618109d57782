package io.sluice.bench.run;

import io.sluice.bench.report.LatencySummary;
import io.sluice.tests.support.RecordVerificationException;
import io.sluice.tests.support.RecordVerifier;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * Checks and measures what one consumer receives: verifies every record, records its latency
 * from the timestamp it carries, counts it, and checks each producer's count from its
 * {@link StreamTrailer}. On the gate of consumer c, input channel p reads producer p, whose
 * records for c carry channel p x consumers + c. Owned by the consumer's thread; its counters
 * may be read by any thread.
 */
final class DeliveryCheck {

    private final int consumer;
    private final RecordVerifier verifier;
    private final Histogram latency = LatencySummary.newHistogram();
    private final TaskCounters counters = new TaskCounters();

    /**
     * @param consumer the consumer's number, which is also the subpartition it reads
     * @param producers the producers, one input channel each
     * @param consumers the consumers, to compute the record channels
     */
    DeliveryCheck(int consumer, int producers, int consumers) {
        this.consumer = consumer;
        int[] channels = new int[producers];
        for (int p = 0; p < producers; p++) {
            channels[p] = p * consumers + consumer;
        }
        this.verifier = new RecordVerifier("consumer " + consumer, channels);
    }

    /**
     * @param inputChannel the producer it came from
     * @param record its bytes, left as they were
     * @throws RecordVerificationException naming the producer and consumer when the record is wrong
     */
    void record(int inputChannel, ByteBuffer record) {
        int size = record.remaining();
        long sentAt;
        try {
            sentAt = verifier.verify(inputChannel, record);
        } catch (RecordVerificationException e) {
            throw named(e);
        }
        latency.recordValue(Math.max(0, System.nanoTime() - sentAt)); // two hosts' clocks may disagree
        counters.add(size);
    }

    /**
     * @param inputChannel the producer it came from
     * @param event its bytes, left as they were
     * @throws RecordVerificationException when the producer sent a different number of records
     * @throws IllegalArgumentException when the event is not a trailer
     */
    void event(int inputChannel, ByteBuffer event) {
        long expected;
        try {
            expected = StreamTrailer.count(event, consumer);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("producer " + inputChannel + " -> consumer " + consumer + ": " + e.getMessage(), e);
        }
        try {
            verifier.endOfChannel(inputChannel, expected);
        } catch (RecordVerificationException e) {
            throw named(e);
        }
    }

    /** Checks, once the gate has finished, that every producer's trailer arrived. */
    void finished() {
        try {
            verifier.verifyAllEnded();
        } catch (RecordVerificationException e) {
            throw named(e);
        }
    }

    /** @return the latencies recorded; read after the consumer ended */
    Histogram latency() {
        return latency;
    }

    /** @return records and bytes verified so far; any thread */
    TaskCounters counters() {
        return counters;
    }

    /** Names the channel by its ends, which is what a reader of the summary knows it by. */
    private RecordVerificationException named(RecordVerificationException e) {
        RecordVerificationException named = new RecordVerificationException("channel producer " + e.inputChannel()
                + " -> consumer " + consumer, e.inputChannel(), e.recordChannel(), e.detail());
        named.initCause(e);
        return named;
    }
}
