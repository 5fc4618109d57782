/**
 * Apache Flink 2.3's shuffle service over Sluice ({@link io.sluice.flink.SluiceShuffleServiceFactory}; docs/flink.md).
 *
 * <p>Programs against {@code io.sluice.api} only (Sluice's Netty implementation is loaded by name). The JobManager
 * side is {@link io.sluice.flink.SluiceShuffleMaster}; each TaskManager has one
 * {@link io.sluice.flink.SluiceShuffleEnvironment}, which makes {@link io.sluice.flink.SluiceResultPartitionWriter}s
 * and {@link io.sluice.flink.SluiceInputGate}s over Sluice's writers and gates. {@code FlinkChannelStandIns} is the
 * one class that works around Flink internals.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>A writer and a gate are driven by their task's mailbox thread; Flink's output flusher also calls
 *       {@code flushAll}; {@code close}, {@code release} and {@code fail} may come from any thread.</li>
 *   <li>Consumer acknowledgements and Flink task events arrive on Sluice transport or consumer threads and only set
 *       state; the all-data-processed future is completed on Flink's I/O executor, never on a Sluice thread.</li>
 *   <li>The availability futures Flink's mailbox waits on are Sluice's wake-up futures: completed directly on the
 *       Sluice thread that makes the gate or writer available (an event loop, a producer or recycling thread), as
 *       Flink's own network stack completes them; Flink's continuations on them only enqueue a mail.</li>
 *   <li>Buffers handed to Flink wrap Sluice's memory; whichever thread recycles the Flink buffer recycles Sluice's.</li>
 * </ul>
 */
package io.sluice.flink;
