package io.sluice.netty.gate;

/** Life cycle of a {@link SingleInputGate}. */
enum GateState {
    /** Built; no memory, no requests. */
    CREATED,
    /** Memory reserved and partitions requested; reading. */
    SET_UP,
    /** Closed: every channel released, every buffer returned. Terminal. */
    CLOSED
}
