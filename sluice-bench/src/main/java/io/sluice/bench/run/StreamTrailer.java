package io.sluice.bench.run;

import java.nio.ByteBuffer;

/**
 * The event a producer broadcasts after its last record: how many records it sent to each
 * subpartition, so every consumer can check its count. Layout: int magic, int subpartitions,
 * then one long count per subpartition. Stateless; any thread.
 */
final class StreamTrailer {

    /** "SLTR": tells a trailer from any other event. */
    private static final int MAGIC = 0x534C5452;
    private static final int HEADER_BYTES = 8;

    private StreamTrailer() {
    }

    /**
     * @param countsBySubpartition records sent to each subpartition
     * @return a new event, position 0 to its end
     */
    static ByteBuffer encode(long[] countsBySubpartition) {
        ByteBuffer event = ByteBuffer.allocate(HEADER_BYTES + Long.BYTES * countsBySubpartition.length);
        event.putInt(MAGIC).putInt(countsBySubpartition.length);
        for (long count : countsBySubpartition) {
            event.putLong(count);
        }
        return event.flip();
    }

    /**
     * @param event an event's bytes from position to limit, left as they were
     * @param subpartition the subpartition whose count to read
     * @return the records the producer sent to it
     * @throws IllegalArgumentException when the event is no trailer or has no such subpartition
     */
    static long count(ByteBuffer event, int subpartition) {
        int at = event.position();
        if (event.remaining() < HEADER_BYTES || event.getInt(at) != MAGIC) {
            throw new IllegalArgumentException("an event of " + event.remaining() + " bytes is not a sluice-bench trailer");
        }
        int subpartitions = event.getInt(at + 4);
        if (subpartition >= subpartitions || event.remaining() < HEADER_BYTES + Long.BYTES * subpartitions) {
            throw new IllegalArgumentException("the trailer counts " + subpartitions + " subpartitions in "
                    + event.remaining() + " bytes; subpartition " + subpartition + " is not among them");
        }
        return event.getLong(at + HEADER_BYTES + Long.BYTES * subpartition);
    }
}
