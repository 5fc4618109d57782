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
    SLOW_CONSUMER
}
