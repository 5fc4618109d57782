/**
 * Seeded fault injection: {@code ChaosScenario} turns one {@code long} seed into environments, an all-to-all job and
 * a schedule of faults keyed to counts; {@code ChaosRun} runs it and judges it (every record intact and complete, or
 * a documented failure that a fault which hit explains; no task stuck; every segment back); {@code ChaosResult}
 * reports a failing seed with the command that replays it. Faults get in through the transport's
 * {@code ChannelPipelineHook} ({@code ChaosPipelineHook}, {@code FaultInjectingHandler}), through the tasks' own
 * steps ({@code FaultActions}) and through another pool of an environment's memory ({@code MemoryPressure}).
 * Used by {@code ChaosTest} in the build and by {@code sluice-bench chaos}; docs/reliability.md explains it.
 *
 * <h2>Threads</h2>
 * A run is driven by one thread; each producer and consumer runs on a thread of its own ({@code TaskThread}), as do
 * memory pressure and closes by another thread. {@code FaultInjectingHandler} lives on its channel's event loop.
 * {@code FaultActions} is shared by all of them; everything else is owned by one thread or immutable.
 */
package io.sluice.tests.chaos;
