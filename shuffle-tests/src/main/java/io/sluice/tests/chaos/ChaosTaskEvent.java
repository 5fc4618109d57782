package io.sluice.tests.chaos;

import java.nio.ByteBuffer;

/**
 * The task events consumers of a chaos job send back to producers: int magic, int consumer, int index (0, 1, 2 ...
 * per consumer). Stateless; any thread.
 */
final class ChaosTaskEvent {

    private static final int MAGIC = 0x5441534B; // "TASK"
    private static final int BYTES = 12;

    private ChaosTaskEvent() {
    }

    static ByteBuffer encode(int consumer, int index) {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(consumer).putInt(index).flip();
    }

    /**
     * @param event bytes from position to limit
     * @param consumers consumers of the job
     * @return the consumer that sent it, or -1 when the bytes are no task event of this job
     */
    static int consumer(ByteBuffer event, int consumers) {
        int at = event.position();
        if (event.remaining() != BYTES || event.getInt(at) != MAGIC) {
            return -1;
        }
        int consumer = event.getInt(at + 4);
        return consumer >= 0 && consumer < consumers ? consumer : -1;
    }

    static int index(ByteBuffer event) {
        return event.getInt(event.position() + 8);
    }
}
