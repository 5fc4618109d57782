/**
 * Helpers of the metrics the environment's writers, gates and connections report through the API
 * ({@link io.sluice.api.WriterMetrics}, {@link io.sluice.api.GateMetrics}, {@link io.sluice.api.ConnectionMetrics}).
 * No Netty, no locks, no threads of its own.
 */
package io.sluice.netty.metrics;
