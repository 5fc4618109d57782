package io.sluice.bench.run;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Records and bytes one task has moved so far, for the progress line. Written by the task's own
 * thread only, read by any thread.
 */
final class TaskCounters {

    private final AtomicLong records = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    /**
     * Counts one record. Only the owning thread calls this: a plain read and an ordered store
     * (lazySet, no fence) cost far less than a contended atomic add per record.
     *
     * @param recordBytes the record's size
     */
    void add(long recordBytes) {
        records.lazySet(records.get() + 1);
        bytes.lazySet(bytes.get() + recordBytes);
    }

    /** @return records counted so far */
    long records() {
        return records.get();
    }

    /** @return bytes counted so far */
    long bytes() {
        return bytes.get();
    }
}
