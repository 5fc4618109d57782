package io.sluice.bench.report;

/**
 * One sample of how data flowed through the environments of a run, over the interval since the previous sample:
 * what a chart of backpressure and pool usage over time plots. Immutable value.
 *
 * @param elapsedNanos              time since the run started
 * @param backpressuredMsPerSecond  ms per second the writers were blocked waiting for a buffer in the interval,
 *                                  averaged over the writers alive (Flink's {@code backPressuredTimeMsPerSecond}),
 *                                  0..1000
 * @param outputPoolUsage           writers' buffers in use divided by their pools' sizes, 0..1
 * @param inputPoolUsage            gates' exclusive and floating buffers in use divided by all of them, 0..1
 * @param queuedInputBuffers        buffers waiting in the gates for their consumers
 * @param waitingForDataMsPerSecond ms per second the consumers waited for data in the interval, averaged over the
 *                                  gates alive, 0..1000
 * @param recordsOut                records the writers alive at the sample have emitted
 */
public record FlowSample(long elapsedNanos, double backpressuredMsPerSecond, double outputPoolUsage,
                         double inputPoolUsage, int queuedInputBuffers, double waitingForDataMsPerSecond,
                         long recordsOut) {
}
