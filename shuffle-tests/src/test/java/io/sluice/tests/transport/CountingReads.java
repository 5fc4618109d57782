package io.sluice.tests.transport;

import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.StreamDigest;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads a gate's records to the end like {@code RecordTraffic.readToEnd}, and also publishes how many it has read
 * so far, so that the test's thread can wait until a stream is running before it breaks something. Stateless;
 * runs on the consumer thread that calls it.
 */
final class CountingReads {

    private CountingReads() {
    }

    /**
     * Reads, verifies and digests records until the gate has finished.
     *
     * @param reader the consumer's reader
     * @param verifier checks each record's stream, sequence number and checksum
     * @param digest takes every record, in order
     * @param read counts the records read; the test's thread reads it
     * @return how many records were read
     * @throws AssertionError when an event arrives
     */
    static long readToEnd(RecordReader reader, RecordVerifier verifier, StreamDigest digest, AtomicLong read)
            throws IOException, InterruptedException {
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent()) {
                throw new AssertionError("unexpected event on channel " + next.channelIndex() + " after "
                        + read.get() + " records");
            }
            verifier.verify(next.channelIndex(), next.data());
            digest.add(next.data());
            read.incrementAndGet();
        }
        return read.get();
    }
}
