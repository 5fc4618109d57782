/**
 * The contract engines program against: configuration ({@link io.sluice.api.ShuffleConfig},
 * {@link io.sluice.api.ShuffleOptions}, {@link io.sluice.api.ShuffleConfigValidator}), the service provider interface
 * ({@link io.sluice.api.ShuffleServiceLoader}, {@link io.sluice.api.ShuffleServiceFactory},
 * {@link io.sluice.api.ShuffleMaster}, {@link io.sluice.api.ShuffleEnvironment}), serializable identities and
 * descriptors, the producer's {@link io.sluice.api.ResultPartitionWriter}, the consumer's
 * {@link io.sluice.api.InputGate} with {@link io.sluice.api.UnionInputGate} and {@link io.sluice.api.RecordReader},
 * the byte layout of records ({@link io.sluice.api.RecordFraming}), the exceptions, and
 * {@link io.sluice.api.ShuffleMetrics}. The names here are stable; docs/contract.md states the contract in full.
 * This package depends on the JDK and slf4j-api only (for the log lines of {@code RecordReader} and
 * {@code ShuffleServiceLoader}).
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>A factory, a master and an environment may be called from any thread.</li>
 *   <li>A writer is used by one producer thread at a time, a gate (or a {@code RecordReader} over it) by one consumer
 *       thread; {@code close()}, {@code isFinished()} and {@code availableFuture()} may be called from any thread, and
 *       a {@code close()} wakes a consumer blocked in {@code getNext()} or {@code next()}.</li>
 *   <li>A pending {@code availableFuture()} of the environment's writers and gates completes on its notification
 *       thread; a pending {@code wakeUpFuture()} (and {@code priorityEventWakeUpFuture()}) completes directly on the
 *       thread that made the writer or gate available (a recycling, producer or transport thread), so a continuation
 *       on it may only hand work to another thread; a callback that does real work should be chained with an
 *       executor of the engine's own ({@code thenRunAsync(action, executor)}).</li>
 *   <li>A writer's task-event listener runs on a transport or consumer thread and must not block.</li>
 *   <li>Configuration objects, identities, descriptors, {@code RecordFraming} and the validator are immutable or
 *       stateless.</li>
 * </ul>
 */
package io.sluice.api;
