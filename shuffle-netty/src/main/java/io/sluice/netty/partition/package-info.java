/**
 * The producer side: {@link io.sluice.netty.partition.ResultPartition} (the engine's
 * {@code ResultPartitionWriter}) frames records into buffers of its local pool and queues them in one
 * {@link io.sluice.netty.partition.PipelinedSubpartition} per consumer; each subpartition has one reader, a
 * {@link io.sluice.netty.partition.ResultSubpartitionView}, told of new data through a
 * {@link io.sluice.netty.partition.BufferAvailabilityListener}. The
 * {@link io.sluice.netty.partition.ResultPartitionManager} is the environment's registry of live partitions, where
 * readers find them or wait for them ({@link io.sluice.netty.partition.PartitionRegistrationListener}); it knows
 * partitions as {@link io.sluice.netty.partition.RegisteredPartition}s, pipelined ones from here and blocking ones
 * from {@code io.sluice.netty.partition.sortmerge}. No Netty here.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The producer thread: emit, broadcast, events and finish, one thread at a time; it owns the buffers under
 *       construction without a lock (see {@link io.sluice.netty.partition.ResultPartition}) and blocks in the pool
 *       when no buffer is free (backpressure).</li>
 *   <li>The environment's timer thread: the {@code PeriodicFlusher}'s ticks, which flush a subpartition when its oldest
 *       unsent byte is due. Flushes never block.</li>
 *   <li>The reader of a subpartition: a local channel's consumer thread, or the event loop of the connection that
 *       serves a remote channel; it alone polls its view.</li>
 *   <li>Any thread: {@code close()}, release (the environment, {@code releasePartitionsLocally}, a reader that lets
 *       go), the metrics.</li>
 * </ul>
 * Readers and registration listeners are called with no partition, subpartition or manager lock held and must not
 * block: they hand the notification over. Lock order: {@code stateLock}, then a subpartition's lock; see package
 * {@code io.sluice.netty} for the order across pools and channels.
 */
package io.sluice.netty.partition;
