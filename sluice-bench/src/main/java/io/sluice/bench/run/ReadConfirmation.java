package io.sluice.bench.run;

import java.nio.ByteBuffer;

/**
 * The task event a consumer sends back to one producer once it has read and verified that producer's whole stream
 * (its {@link StreamTrailer} matched): how many records and record bytes it took. A producer that serves another
 * process learns from it, and only from it, that its data arrived intact. Layout: int magic, int consumer, long
 * records, long bytes. Stateless; any thread.
 */
final class ReadConfirmation {

    /** "SLRC": tells a confirmation from any other task event. */
    private static final int MAGIC = 0x534C5243;
    private static final int BYTES = 4 + 4 + 8 + 8;

    /**
     * A decoded confirmation. Immutable value.
     *
     * @param consumer the consumer's number, which is also the subpartition it read
     * @param records the records it verified
     * @param bytes their bytes
     */
    record Confirmed(int consumer, long records, long bytes) {
    }

    private ReadConfirmation() {
    }

    /**
     * @param consumer the consumer's number
     * @param records the records it verified from the producer
     * @param bytes their bytes
     * @return a new event, position 0 to its end
     */
    static ByteBuffer encode(int consumer, long records, long bytes) {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(consumer).putLong(records).putLong(bytes).flip();
    }

    /**
     * @param event a task event's bytes from position to limit, left as they were
     * @return the confirmation, or null when the event is not one
     */
    static Confirmed decode(ByteBuffer event) {
        int at = event.position();
        if (event.remaining() != BYTES || event.getInt(at) != MAGIC) {
            return null;
        }
        return new Confirmed(event.getInt(at + 4), event.getLong(at + 8), event.getLong(at + 16));
    }
}
