/**
 * Blocking partitions in the sort-merge style ({@code PartitionType.BLOCKING}): one data file and one index file per
 * partition ({@link io.sluice.netty.partition.sortmerge.PartitionFiles} describes the layout, docs/batch.md draws
 * it). {@link io.sluice.netty.partition.sortmerge.SortMergeResultPartition} frames records into its pool's buffers
 * and writes them out a region at a time when the pool runs dry;
 * {@link io.sluice.netty.partition.sortmerge.SortMergeSubpartitionView}s read a finished partition, any number at
 * once, through the environment's {@link io.sluice.netty.partition.sortmerge.BlockingReadScheduler}, which owns the
 * read budget ({@code shuffle.blocking.read-memory}) and the one I/O thread.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The producer thread: emit, broadcast, finish, serialized by the partition's {@code emitLock}; it writes the
 *       files itself (disk I/O happens on the producer's thread, never on an event loop).</li>
 *   <li>The environment's blocking I/O thread ({@code sluice-blocking-io-<resource id>}): every read from disk.</li>
 *   <li>The reader of a view: a local channel's consumer thread or a connection's event loop; it only takes
 *       buffers that are already in memory.</li>
 *   <li>Any thread: release, close, view creation.</li>
 * </ul>
 * Lock order: the partition's {@code emitLock}, then its {@code stateLock}; the scheduler's lock, then a view's lock.
 * Listeners are called with no lock held.
 */
package io.sluice.netty.partition.sortmerge;
