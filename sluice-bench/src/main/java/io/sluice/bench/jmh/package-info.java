/**
 * JMH benchmarks of the library through its public API, run by {@code sluice-bench jmh}: bulk and small-record
 * throughput, many channels, and round-trip latency, each over a {@code Link} (loopback TCP,
 * Netty's in-JVM transport, or in-process channels), shaped like the figures of the external comparison harness so
 * that docs/benchmarks.md can set them side by side.
 *
 * <h2>Threads</h2>
 * JMH's setup and teardown thread builds and closes a fixture ({@code StreamingFixture},
 * {@code PingPongFixture}); producer and consumer (or echo) threads of the fixture run for the
 * whole trial; the benchmark thread only waits for delivered records ({@code DeliveryCounter}) or
 * for one round trip. Teardown fails the run when a record was lost or a buffer not returned.
 */
package io.sluice.bench.jmh;
