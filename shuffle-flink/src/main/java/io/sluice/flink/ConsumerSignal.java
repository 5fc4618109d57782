package io.sluice.flink;

import java.nio.ByteBuffer;

/**
 * What a Flink consumer tells its producer through Sluice's task events (consumer to producer): "every record of
 * subpartition k was processed" (Flink's {@code acknowledgeAllRecordsProcessed}, after {@code EndOfData}), or one of
 * Flink's own {@code TaskEvent}s. Layout: one kind byte, then for an acknowledgement the 4-byte subpartition index,
 * for a task event Flink's serialized event. Stateless; any thread.
 */
final class ConsumerSignal {

    /** Kind byte of an all-records-processed acknowledgement. */
    static final byte ALL_RECORDS_PROCESSED = 1;
    /** Kind byte of a Flink task event. */
    static final byte TASK_EVENT = 2;

    private ConsumerSignal() {
    }

    /** A new acknowledgement that the consumer of {@code subpartition} processed all its records. */
    static ByteBuffer allRecordsProcessed(int subpartition) {
        ByteBuffer signal = ByteBuffer.allocate(1 + Integer.BYTES);
        signal.put(ALL_RECORDS_PROCESSED).putInt(subpartition).flip();
        return signal;
    }

    /** A new task-event signal around Flink's serialized event; {@code serialized}'s position is not moved. */
    static ByteBuffer taskEvent(ByteBuffer serialized) {
        ByteBuffer signal = ByteBuffer.allocate(1 + serialized.remaining());
        signal.put(TASK_EVENT).put(serialized.duplicate()).flip();
        return signal;
    }

    /** @return the kind byte of {@code signal} (not consumed) */
    static byte kindOf(ByteBuffer signal) {
        if (!signal.hasRemaining()) {
            throw new IllegalArgumentException("empty consumer signal");
        }
        return signal.get(signal.position());
    }

    /** @return the subpartition an acknowledgement names */
    static int acknowledgedSubpartition(ByteBuffer signal) {
        return signal.getInt(signal.position() + 1);
    }

    /** @return a view of a task event's serialized Flink event */
    static ByteBuffer taskEventPayload(ByteBuffer signal) {
        ByteBuffer payload = signal.duplicate();
        payload.position(payload.position() + 1);
        return payload.slice();
    }
}
