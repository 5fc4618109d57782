package io.sluice.tests.chaos;

/**
 * One scheduled fault. What hits which step is a function of the seed only: every fault is keyed to a count (the
 * Nth frame on a connection, the Nth record of a producer or consumer) or to a point of the job (a blocking
 * partition finished and not yet read), never to the clock.
 * Immutable value; any thread.
 *
 * @param kind   what happens
 * @param actor  the producer ({@code PRODUCER_*}, {@code MEMORY_PRESSURE}, and the at-rest faults, whose partition's
 *               files are damaged), the consumer ({@code GATE_CLOSE}, {@code CONSUMER_ENVIRONMENT_CLOSE},
 *               {@code SLOW_CONSUMER}, {@code READER_STALL}) or the client environment of the connection
 *               ({@code CONNECTION_*}, {@code FRAME_DELAY}) whose count triggers it
 * @param target the server environment of the connection ({@code CONNECTION_*}, {@code FRAME_DELAY}), the
 *               environment under {@code MEMORY_PRESSURE}; otherwise unused (-1)
 * @param at     the count that triggers it: frames received, records emitted or records read; for an at-rest fault
 *               ({@link FaultKind#atRest()}) a non-negative selector that picks the place in the file (a byte, an
 *               index entry, a length, a compressed buffer) whatever the file's size turns out to be
 * @param amount frames delayed, segments taken, records between two sleeps of a slow consumer, the bit flipped
 *               (0 to 7) by {@code CORRUPT_DATA_BIT} and {@code CORRUPT_COMPRESSED_BLOCK}, or the records the other
 *               consumers read together before a stalled reader ({@code READER_STALL}) goes on
 * @param millis how long frames are held, or segments kept
 * @param concurrent for a close ({@code GATE_CLOSE}, {@code *_ENVIRONMENT_CLOSE}): true when another thread closes,
 *               started at the count, while the task goes on (which step the close starts at is still the seed's;
 *               how it interleaves with the task's next steps is the scheduler's); false when the task's own thread
 *               closes and then goes on. For {@code READER_STALL}: true when, instead of reading on, the stalled
 *               reader's gate is closed by another thread once it may go on
 */
public record Fault(FaultKind kind, int actor, int target, long at, int amount, int millis, boolean concurrent) {

    @Override
    public String toString() {
        return switch (kind) {
            case CONNECTION_CLOSE, CONNECTION_RESET -> kind + " env-" + actor + " -> env-" + target
                    + " after frame " + at;
            case FRAME_DELAY -> kind + " env-" + actor + " -> env-" + target + " frames " + at + ".."
                    + (at + amount - 1) + " by " + millis + " ms";
            case PRODUCER_FAIL -> kind + " producer " + actor + " after record " + at;
            case PRODUCER_ENVIRONMENT_CLOSE -> kind + " producer " + actor + " after record " + at
                    + (concurrent ? " (by another thread)" : "");
            case GATE_CLOSE, CONSUMER_ENVIRONMENT_CLOSE -> kind + " consumer " + actor + " after record " + at
                    + (concurrent ? " (by another thread)" : "");
            case MEMORY_PRESSURE -> kind + " env-" + target + " takes " + amount + " segments for " + millis
                    + " ms after record " + at + " of producer " + actor;
            case SLOW_CONSUMER -> kind + " consumer " + actor + " from record " + at + ", 1 ms every " + amount;
            case CORRUPT_DATA_BIT, CORRUPT_COMPRESSED_BLOCK -> kind + " producer " + actor + "'s partition, bit "
                    + amount + " at selector " + at;
            case CORRUPT_INDEX_ENTRY, TRUNCATE_DATA, BLOCKING_IO_ERROR -> kind + " producer " + actor
                    + "'s partition at selector " + at;
            case READER_STALL -> kind + " consumer " + actor + " after record " + at + " until the others read "
                    + amount + " records or ended, then " + (concurrent ? "its gate is closed by another thread"
                    : "it reads on");
        };
    }
}
