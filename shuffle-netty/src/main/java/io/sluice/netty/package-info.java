/**
 * Sluice's default shuffle service: {@link io.sluice.netty.NettyShuffleServiceFactory} (found through
 * {@code META-INF/services}), the coordinator side {@link io.sluice.netty.NettyShuffleMaster} and its
 * {@link io.sluice.netty.NettyShuffleDescriptor}, and {@link io.sluice.netty.NettyShuffleEnvironment}, which owns one
 * process's network memory (one {@link io.sluice.buffers.NetworkBufferPool}), its partitions
 * ({@code io.sluice.netty.partition}), its gates ({@code io.sluice.netty.gate}) and its transport
 * ({@code io.sluice.netty.transport}). {@link io.sluice.netty.config.EnvironmentConfig} reads and checks the options once.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The engine's threads: the factory, master and environment from any thread; a writer from one producer thread
 *       at a time, a gate from one consumer thread; {@code close()} of either from any thread.</li>
 *   <li>One timer thread per environment ({@code sluice-timer-<resource id>}): the periodic flushes of every partition
 *       and the delayed retries of partition requests.</li>
 *   <li>One notification thread per environment ({@code sluice-notify-<resource id>},
 *       {@code io.sluice.netty.notification}): it completes the pending {@code availableFuture()}s of writers and
 *       gates, so that engine continuations run neither on event loops nor on recycling threads.</li>
 *   <li>One blocking I/O thread per environment ({@code sluice-blocking-io-<resource id>}), started for the first
 *       read of a blocking partition: every read from disk (see {@code io.sluice.netty.partition.sortmerge}).</li>
 *   <li>Netty event loops (server and client groups of the environment's {@code ConnectionManager}): everything that
 *       touches a connection. Other threads reach them only by handing a task over ({@code execute}, coalesced);
 *       nothing blocks an event loop.</li>
 *   <li>Whichever thread releases a buffer's last reference runs its recycler, and with it the pool's listeners and
 *       availability callbacks (see package {@code io.sluice.buffers}).</li>
 * </ul>
 *
 * <h2>Lock order across partition, pool and channel locks</h2>
 * A thread that holds a lock of this list may take only locks further down. Outermost first:
 * <ol>
 *   <li>{@code NettyShuffleEnvironment.lock} (writers, gates, state; {@code metrics()} destroys the global pool under
 *       it once every segment is back). {@code ConnectionManager.lock} is taken only by {@code start()} and
 *       {@code close()}, never together with another lock of this list; {@code close()} waits for the event loops
 *       while holding it, which is safe because no event-loop task takes it.</li>
 *   <li>{@code SortMergeResultPartition.emitLock} (a blocking partition's open region and file writer). A pipelined
 *       {@code ResultPartition} takes no lock per record: its buffers under construction are confined to the
 *       producer thread (see its Javadoc), which holds no partition lock while it requests a buffer, blocking
 *       included, queues into a subpartition, or a subpartition tells a local channel (and so its gate) of new
 *       data.</li>
 *   <li>{@code ResultPartition.stateLock} (life cycle; {@code setup()} creates the partition's pool and registers it
 *       with the {@code ResultPartitionManager} under it), and on the consumer side the monitor of
 *       {@code RemoteGateMemory} (held by {@code reserve()} while taking exclusive segments, creating the floating pool
 *       and assigning buffers to the channels). Never held together with a subpartition's lock.</li>
 *   <li>{@code SingleInputGate.debloatLock} (serialises {@code triggerDebloating()} and the starting size's
 *       announcement in {@code setup()}): held while it samples each
 *       channel's buffers in flight (a local channel's subpartition lock, a remote channel's buffer and queue locks)
 *       and announces the size (a remote channel's request lock; a channel's error, then the gate's lock).</li>
 *   <li>{@code PipelinedSubpartition.lock} (its queue): held while buffers are closed or recycled into the partition's
 *       pool (release, a refused add, empty buffers skipped by a poll).</li>
 *   <li>{@code RemoteInputChannel.buffersLock} (its exclusive and floating buffers, backlog): held while requesting
 *       from, or registering as a listener of, the gate's floating pool.</li>
 *   <li>{@code RemoteInputChannel.requestLock} (its client, retries, backoff).</li>
 *   <li>{@code NetworkBufferPool.factoryLock} (pool registry, reservations, redistribution).</li>
 *   <li>{@code LocalBufferPool.lock}, of one pool at a time (never two).</li>
 *   <li>{@code NetworkBufferPool.segmentLock} (free segments, availability future): innermost; calls nothing.</li>
 * </ol>
 * Leaves, which call nothing while held: {@code ResultPartitionManager} ({@code this}), {@code SingleInputGate.lock},
 * {@code RemoteInputChannel.receivedLock}, the {@code InputChannel} monitor ({@code setError}),
 * {@code LocalInputChannel.requestLock}, the {@code PartitionRequestClient} monitor. Netty state has no lock: it is
 * confined to its event loop.
 *
 * <p>Callbacks. Pools complete their availability futures and call {@code BufferListener}s with no <em>pool</em> lock
 * held, but on the recycling thread, under whatever locks that thread holds. A segment returned to the global pool
 * completes its availability future, whose callbacks let waiting local pools hand buffers to waiting remote channels;
 * so a recycle under a subpartition's lock, under {@code stateLock} or {@code RemoteGateMemory} (redistribution after
 * a pool is created) may take a remote channel's {@code buffersLock} and then its {@code requestLock} (levels 5 and 6
 * above, which is why they sit below the partition locks). A request under one channel's {@code buffersLock} may hand
 * a buffer to another waiting channel and take that channel's {@code buffersLock}: this cannot close a cycle because a
 * channel calls into the pool only while it is not waiting, and is handed buffers only while it is. Subpartitions
 * call their reader, and channels their gate, only after releasing their own locks.
 */
package io.sluice.netty;
