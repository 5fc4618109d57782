/**
 * A buffer trace ({@code io.sluice.buffers.BufferTrace}, recorded with {@code -Dsluice.trace}) read back: each data
 * buffer's journey through the hops of the shuffle ({@code TraceLinker}, {@code BufferJourney}) and the per-hop
 * latency table of a trace file ({@code TraceTable}, run with
 * {@code java -cp sluice-bench.jar io.sluice.bench.trace.TraceTable <trace-file>}).
 *
 * <p>Threads: single-threaded.
 */
package io.sluice.bench.trace;
