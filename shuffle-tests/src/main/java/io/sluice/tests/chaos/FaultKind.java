package io.sluice.tests.chaos;

/** The faults a {@link ChaosScenario} can schedule; see {@link Fault} for what each one's fields mean. */
public enum FaultKind {
    /** The client closes its connection to a producer environment after receiving its Nth frame. */
    CONNECTION_CLOSE,
    /** Like {@link #CONNECTION_CLOSE}, with SO_LINGER 0 on TCP, so the server sees a reset (RST). */
    CONNECTION_RESET,
    /** Frames N to N+count-1 the client receives on a connection reach its handler only after a delay, in order. */
    FRAME_DELAY,
    /** A producer calls {@code fail()} after emitting its Nth record. */
    PRODUCER_FAIL,
    /** A producer's thread closes its own environment after emitting its Nth record. */
    PRODUCER_ENVIRONMENT_CLOSE,
    /** A consumer's thread closes its gate after reading its Nth record. */
    GATE_CLOSE,
    /** A consumer's thread closes its own environment after reading its Nth record. */
    CONSUMER_ENVIRONMENT_CLOSE,
    /** After a producer's Nth record, another pool takes up to count segments of an environment for a while. */
    MEMORY_PRESSURE,
    /** From its Nth record on, a consumer sleeps a millisecond every few records. */
    SLOW_CONSUMER,
    /** Between finish and read, one bit of a blocking partition's data file is flipped. */
    CORRUPT_DATA_BIT,
    /** Between finish and read, one entry of a blocking partition's index file is zeroed. */
    CORRUPT_INDEX_ENTRY,
    /** Between finish and read, a blocking partition's data file is cut short. */
    TRUNCATE_DATA,
    /** Between finish and read, one bit inside an lz4-compressed stored buffer of a blocking partition is flipped. */
    CORRUPT_COMPRESSED_BLOCK,
    /**
     * Between finish and read, a blocking partition's files are changed so that reading them makes the
     * environment's blocking I/O thread fail with an Error.
     */
    BLOCKING_IO_ERROR,
    /** A consumer of blocking partitions stops reading at its Nth record while the others read, then goes on. */
    READER_STALL;

    /** @return whether it damages a blocking partition's files between its finish and its read */
    boolean atRest() {
        return switch (this) {
            case CORRUPT_DATA_BIT, CORRUPT_INDEX_ENTRY, TRUNCATE_DATA, CORRUPT_COMPRESSED_BLOCK, BLOCKING_IO_ERROR -> true;
            default -> false;
        };
    }
}
