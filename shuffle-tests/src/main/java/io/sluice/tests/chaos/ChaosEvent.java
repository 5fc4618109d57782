package io.sluice.tests.chaos;

import java.nio.ByteBuffer;

/**
 * The events of a chaos job and what they carry, so a consumer can check where each one arrived. Layout, big-endian:
 * int magic, int kind (0 event, 1 priority event, 2 trailer), int producer, int index (per producer and kind), int
 * events sent (a trailer: non-priority events before it), int priority events sent, then one long per subpartition:
 * the records the producer had emitted to it when it broadcast the event. Stateless; any thread.
 */
final class ChaosEvent {

    /** An ordinary event: it must arrive exactly after the records emitted before it. */
    static final int EVENT = 0;
    /** A priority event: it may overtake records, never arrive before records emitted after it. */
    static final int PRIORITY = 1;
    /** The last event of a producer: every count is final. */
    static final int TRAILER = 2;

    private static final int MAGIC = 0x43484153; // "CHAS"
    private static final int HEADER = 24;

    private ChaosEvent() {
    }

    /** @return a new event, position 0 to its end */
    static ByteBuffer encode(int kind, int producer, int index, int eventsSent, int prioritySent, long[] counts) {
        ByteBuffer event = ByteBuffer.allocate(HEADER + Long.BYTES * counts.length);
        event.putInt(MAGIC).putInt(kind).putInt(producer).putInt(index).putInt(eventsSent).putInt(prioritySent);
        for (long count : counts) {
            event.putLong(count);
        }
        return event.flip();
    }

    /**
     * @param event bytes from position to limit, left as they were
     * @param subpartitions subpartitions the producer has
     * @return null when it is a well-formed chaos event, else what is wrong with it
     */
    static String problem(ByteBuffer event, int subpartitions) {
        if (event.remaining() != HEADER + Long.BYTES * subpartitions) {
            return "an event of " + event.remaining() + " bytes, expected " + (HEADER + Long.BYTES * subpartitions);
        }
        int at = event.position();
        if (event.getInt(at) != MAGIC || kind(event) < EVENT || kind(event) > TRAILER) {
            return "an event with a damaged header";
        }
        return null;
    }

    static int kind(ByteBuffer event) {
        return event.getInt(event.position() + 4);
    }

    static int producer(ByteBuffer event) {
        return event.getInt(event.position() + 8);
    }

    static int index(ByteBuffer event) {
        return event.getInt(event.position() + 12);
    }

    static int eventsSent(ByteBuffer event) {
        return event.getInt(event.position() + 16);
    }

    static int prioritySent(ByteBuffer event) {
        return event.getInt(event.position() + 20);
    }

    static long count(ByteBuffer event, int subpartition) {
        return event.getLong(event.position() + HEADER + Long.BYTES * subpartition);
    }
}
