/**
 * Network memory, without Netty: {@link io.sluice.buffers.MemorySegment}s allocated once by the environment's
 * {@link io.sluice.buffers.NetworkBufferPool}, which lends them to {@link io.sluice.buffers.LocalBufferPool}s (one per
 * partition, one floating pool per gate) and as exclusive segments (a remote channel's), keeping each pool at its
 * fair share; reference-counted {@link io.sluice.buffers.Buffer}s over them, which
 * go back to their {@link io.sluice.buffers.BufferRecycler} when the last reference is released; and the
 * {@link io.sluice.buffers.BufferBuilder} / {@link io.sluice.buffers.BufferConsumer} pair through which one writer
 * thread publishes bytes to a reader without a lock.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The pools may be called from any thread. Lock order, outermost first: the global pool's {@code factoryLock},
 *       the lock of one local pool (never two), the global pool's {@code segmentLock}, which calls nothing.</li>
 *   <li>Recycling runs on whichever thread releases a buffer's last reference (a consumer, an event loop after a
 *       write, a releasing thread). Pools call {@link io.sluice.buffers.BufferListener}s and complete their
 *       availability futures on that thread, after releasing their own locks but under any lock the recycling caller
 *       holds; listeners must be quick and must not block.</li>
 *   <li>A {@code BufferBuilder} has one writer thread; its consumer may read on another; a segment has one owner at a
 *       time.</li>
 * </ul>
 * Ownership: whoever requests a buffer, builder or segment owns it until it recycles it, exactly once.
 */
package io.sluice.buffers;
