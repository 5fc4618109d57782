package io.sluice.tests.support;

import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Sends {@link RecordGenerator} records through a writer and checks them out of a reader with a
 * {@link RecordVerifier}. Stateless; each method runs on the producer's or consumer's thread that calls it.
 */
public final class RecordTraffic {

    private RecordTraffic() {
    }

    /**
     * Emits the generator's next {@code count} records to one subpartition.
     *
     * @param writer the producer's writer, set up
     * @param subpartition where the records go
     * @param records generates them; its channel is what the consumer's verifier expects on this subpartition
     * @param count how many to emit
     * @return the bytes of the emitted records, without framing
     */
    public static long emit(ResultPartitionWriter writer, int subpartition, RecordGenerator records, long count)
            throws IOException {
        long bytes = 0;
        for (long i = 0; i < count; i++) {
            bytes += emitNext(writer, subpartition, records);
        }
        return bytes;
    }

    /**
     * From one thread, emits {@code recordsPerWriter} records to subpartition 0 of every writer, round-robin (one record
     * to each writer in turn), so that every connection carries many channels at once; writer {@code i}'s records are
     * those of a {@link RecordGenerator} of channel {@code i}. Then finishes every writer.
     */
    public static void emitRoundRobinAndFinish(ResultPartitionWriter[] writers, int recordsPerWriter, long seed,
                                               RecordSizes sizes) throws IOException {
        RecordGenerator[] streams = new RecordGenerator[writers.length];
        for (int i = 0; i < writers.length; i++) {
            streams[i] = new RecordGenerator(i, seed, sizes);
        }
        for (int r = 0; r < recordsPerWriter; r++) {
            for (int i = 0; i < writers.length; i++) {
                emitNext(writers[i], 0, streams[i]);
            }
        }
        for (ResultPartitionWriter writer : writers) {
            writer.finish();
        }
    }

    /**
     * Emits the generator's next record to one subpartition.
     *
     * @return its size in bytes
     */
    public static int emitNext(ResultPartitionWriter writer, int subpartition, RecordGenerator records)
            throws IOException {
        ByteBuffer record = records.next(System.nanoTime());
        writer.emitRecord(record, subpartition);
        return record.remaining();
    }

    /**
     * Reads and verifies exactly {@code count} records, blocking while none is there.
     *
     * @throws AssertionError when an event arrives, or the gate finishes first
     * @throws RecordVerificationException when a record is lost, reordered, damaged or on the wrong channel
     */
    public static void read(RecordReader reader, RecordVerifier verifier, long count)
            throws IOException, InterruptedException {
        for (long i = 0; i < count; i++) {
            RecordOrEvent next = reader.next();
            if (next == null) {
                throw new AssertionError("the gate finished after " + i + " of the " + count + " records expected");
            }
            verify(next, verifier);
        }
    }

    /**
     * Reads and verifies records until the gate has finished.
     *
     * @return how many records were read
     * @throws AssertionError when an event arrives
     * @throws RecordVerificationException when a record is lost, reordered, damaged or on the wrong channel
     */
    public static long readToEnd(RecordReader reader, RecordVerifier verifier)
            throws IOException, InterruptedException {
        long read = 0;
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            verify(next, verifier);
            read++;
        }
        return read;
    }

    private static void verify(RecordOrEvent next, RecordVerifier verifier) {
        if (next.isEvent()) {
            throw new AssertionError("unexpected event of " + next.data().remaining() + " bytes on channel "
                    + next.channelIndex() + " after " + verifier.records() + " records");
        }
        verifier.verify(next.channelIndex(), next.data());
    }
}
