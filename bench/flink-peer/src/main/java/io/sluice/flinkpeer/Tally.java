package io.sluice.flinkpeer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one consumer thread has received: bytes and units (buffers or records). Written only by its owner thread,
 * which publishes with a lazy (release) store so counting costs no fence; read by the measuring thread.
 */
final class Tally {

    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong units = new AtomicLong();
    // Owner-thread running totals.
    private long ownBytes;
    private long ownUnits;

    /** Owner thread: counts {@code unitCount} more units of {@code byteCount} bytes in total. */
    void add(long byteCount, long unitCount) {
        ownBytes += byteCount;
        ownUnits += unitCount;
        bytes.lazySet(ownBytes);
        units.lazySet(ownUnits);
    }

    long bytes() {
        return bytes.get();
    }

    long units() {
        return units.get();
    }
}
