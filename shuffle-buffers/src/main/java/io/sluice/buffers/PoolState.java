package io.sluice.buffers;

/** Life cycle of a buffer pool: {@code ACTIVE -> DESTROYED}, one way; destroying twice is a no-op. */
enum PoolState {
    ACTIVE,
    DESTROYED
}
