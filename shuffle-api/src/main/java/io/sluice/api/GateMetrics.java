package io.sluice.api;

/**
 * A snapshot of one gate's figures ({@link InputGate#metrics()}). Immutable value; any thread.
 *
 * <p>Input pool usage has two parts, as in Flink: the exclusive buffers that every remote channel owns (its initial
 * credit), and the gate's floating buffers that channels borrow when their producer announces a backlog. A
 * consumer that cannot keep up shows both near 1; a gate of local channels owns neither and reports 0.
 *
 * @param ownerName             the consuming task (and gate number), as in log messages
 * @param timestampNanos        {@link System#nanoTime()} when the snapshot was taken
 * @param numberOfChannels      the gate's channels
 * @param bytesIn               bytes of the buffers and events the consumer took so far
 * @param buffersIn             data buffers the consumer took so far
 * @param queuedBuffers         buffers received (or, for a local channel, ready in the producer's subpartition) that
 *                              the consumer has not taken yet
 * @param exclusiveBuffersInUse exclusive buffers holding data now (queued, or taken and not yet recycled)
 * @param exclusiveBuffers      exclusive buffers of the gate's remote channels
 * @param floatingBuffersInUse  floating buffers out of the gate's floating pool now
 * @param floatingBuffers       the floating pool's size
 * @param waitingForDataNanos   total time the consumer blocked in {@link InputGate#getNext()} waiting for data, in
 *                              nanoseconds, the current wait included
 */
public record GateMetrics(String ownerName, long timestampNanos, int numberOfChannels, long bytesIn, long buffersIn,
                          int queuedBuffers, int exclusiveBuffersInUse, int exclusiveBuffers,
                          int floatingBuffersInUse, int floatingBuffers, long waitingForDataNanos) {

    /** @return exclusive buffers in use divided by exclusive buffers, in [0, 1]; 0 without remote channels */
    public double exclusivePoolUsage() {
        return RateSince.usage(exclusiveBuffersInUse, exclusiveBuffers);
    }

    /** @return floating buffers in use divided by the floating pool's size, in [0, 1]; 0 without floating buffers */
    public double floatingPoolUsage() {
        return RateSince.usage(floatingBuffersInUse, floatingBuffers);
    }

    /** @return all input buffers in use divided by all of them, in [0, 1] */
    public double inputPoolUsage() {
        return RateSince.usage(exclusiveBuffersInUse + floatingBuffersInUse, exclusiveBuffers + floatingBuffers);
    }

    /**
     * @param earlier a snapshot of the same gate taken before this one
     * @return milliseconds per second the consumer waited for data between the two snapshots, in [0, 1000]
     */
    public double waitingForDataMsPerSecond(GateMetrics earlier) {
        return RateSince.msPerSecond(waitingForDataNanos, earlier.waitingForDataNanos, timestampNanos,
                earlier.timestampNanos);
    }
}
