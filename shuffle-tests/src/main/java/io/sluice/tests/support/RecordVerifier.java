package io.sluice.tests.support;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Checks what one gate received against what {@link RecordGenerator}s sent: per input channel,
 * every record carries the expected channel, sequence numbers run 0, 1, 2, ... without a gap,
 * every checksum matches, and the count equals what the producer reports at the end. The first
 * problem throws a {@link RecordVerificationException} naming the channel.
 * Owned by the gate's consumer thread; not thread-safe.
 */
public final class RecordVerifier {

    private final String gateName;
    private final int[] expectedChannels;
    private final long[] nextSequence;
    private final boolean[] ended;
    private final CRC32C crc = new CRC32C();
    private long records;
    private long bytes;

    /**
     * @param gateName names the gate in messages, e.g. {@code "consumer 3"}
     * @param expectedChannels for each input channel of the gate, the channel its records carry; copied
     */
    public RecordVerifier(String gateName, int[] expectedChannels) {
        this.gateName = gateName;
        this.expectedChannels = expectedChannels.clone();
        this.nextSequence = new long[expectedChannels.length];
        this.ended = new boolean[expectedChannels.length];
    }

    /**
     * Verifies one record; no allocation unless it is wrong.
     *
     * @param inputChannel the gate channel it arrived on
     * @param record its bytes from position to limit, left as they were
     * @return the timestamp it carries ({@link RecordFormat#timestampNanos})
     * @throws RecordVerificationException when it is not the next record of that channel, intact
     */
    public long verify(int inputChannel, ByteBuffer record) {
        long expected = nextSequence[inputChannel];
        int size = record.remaining();
        if (ended[inputChannel]) {
            throw mismatch(inputChannel, "a record of " + size + " bytes arrived after the channel ended with " + expected + " records");
        }
        if (size < RecordFormat.HEADER_BYTES) {
            throw mismatch(inputChannel, "record " + expected + " is " + size + " bytes, shorter than the "
                    + RecordFormat.HEADER_BYTES + "-byte header");
        }
        // The checksum first: a damaged header must read as damage, not as a lost or crossed record.
        int carried = RecordFormat.carriedChecksum(record);
        int computed = RecordFormat.computeChecksum(record, crc);
        if (carried != computed) {
            throw mismatch(inputChannel, "record " + expected + " (" + size + " bytes) fails its checksum: carried 0x"
                    + Integer.toHexString(carried) + ", computed 0x" + Integer.toHexString(computed));
        }
        int channel = RecordFormat.channel(record);
        if (channel != expectedChannels[inputChannel]) {
            throw mismatch(inputChannel, "record " + expected + " carries channel " + channel + " (records crossed channels)");
        }
        long sequence = RecordFormat.sequence(record);
        if (sequence != expected) {
            throw mismatch(inputChannel, "expected record " + expected + ", got record " + sequence
                    + (sequence > expected ? " (" + (sequence - expected) + " lost)" : " (duplicated or reordered)"));
        }
        nextSequence[inputChannel] = expected + 1;
        records++;
        bytes += size;
        return RecordFormat.timestampNanos(record);
    }

    /**
     * Marks an input channel as ended and checks its count.
     *
     * @param inputChannel the gate channel
     * @param expectedRecords how many records its producer sent
     * @throws RecordVerificationException when a different number arrived, or the channel ended before
     */
    public void endOfChannel(int inputChannel, long expectedRecords) {
        if (ended[inputChannel]) {
            throw mismatch(inputChannel, "ended twice");
        }
        ended[inputChannel] = true;
        long received = nextSequence[inputChannel];
        if (received != expectedRecords) {
            throw mismatch(inputChannel, "ended after " + received + " records, but its producer sent " + expectedRecords);
        }
    }

    /**
     * Checks that every input channel has ended ({@link #endOfChannel}).
     *
     * @throws RecordVerificationException naming the first channel that has not
     */
    public void verifyAllEnded() {
        for (int i = 0; i < ended.length; i++) {
            if (!ended[i]) {
                throw mismatch(i, "the gate finished but this channel never reported its end (after "
                        + nextSequence[i] + " records)");
            }
        }
    }

    /** @return the records verified so far, over every channel */
    public long records() {
        return records;
    }

    /** @return the bytes of the records verified so far */
    public long bytes() {
        return bytes;
    }

    /**
     * @param inputChannel a gate channel
     * @return the records verified on it
     */
    public long records(int inputChannel) {
        return nextSequence[inputChannel];
    }

    private RecordVerificationException mismatch(int inputChannel, String what) {
        return new RecordVerificationException(gateName, inputChannel, expectedChannels[inputChannel], what);
    }
}
