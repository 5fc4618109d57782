/**
 * The consumer side: {@link io.sluice.netty.gate.SingleInputGate} (the engine's {@code InputGate}) over one
 * {@link io.sluice.netty.gate.InputChannel} per producer partition: a
 * {@code LocalInputChannel} reads a subpartition of this environment directly (no network, no
 * copy), a {@link io.sluice.netty.gate.RemoteInputChannel} receives over a connection and grants credit from its
 * exclusive buffers and the gate's floating pool, an {@link io.sluice.netty.gate.UnreachableInputChannel} fails setup
 * with the reason. {@link io.sluice.netty.gate.InputChannelFactory} picks the kind, {@code GateMemory}
 * reserves the gate's memory, {@code PartitionRequestBackoff} spaces the retries.
 *
 * <p>The gate package knows no transport and no Netty: a remote channel reaches its producer through the two
 * interfaces it defines, {@link io.sluice.netty.gate.ProducerConnections} (open or share the connection of a
 * {@link io.sluice.netty.gate.ConnectionId}) and {@link io.sluice.netty.gate.ProducerConnection} (send on it),
 * which {@code io.sluice.netty.transport} implements; the transport depends on the gate, never the other way.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>The consumer thread: {@code setup()}, {@code pollNext()}, {@code getNext()}, {@code startPersisting()},
 *       {@code stopPersisting()} (with the sink and predicate they are given), and each channel's
 *       {@code getNextBuffer()} and {@code ChannelPersister}.</li>
 *   <li>Notifying threads, which queue a channel on its gate: producer threads (local channels, inside an emit,
 *       holding no partition lock), client event loops (remote channels), the environment's timer (retries) and any
 *       thread that records a channel's error.</li>
 *   <li>The client event loop of a remote channel's connection: {@code requestBuffer}, {@code onBuffer},
 *       {@code onEmptyBuffer}, {@code onFailedPartitionRequest}.</li>
 *   <li>Whichever thread recycles a buffer: a remote channel's {@code recycle} and {@code notifyBufferAvailable}.</li>
 *   <li>Any thread: {@code close()}, {@code isFinished()}, {@code availableFuture()}, {@code addRecovered()}, a
 *       channel's release.</li>
 *   <li>Any thread, one call at a time: {@code triggerDebloating()} (the engine's thread, or the environment's timer
 *       with {@code shuffle.debloat.period} above 0), which calls each channel's {@code buffersInUse()} and
 *       {@code announceBufferSize}; {@code setup()} announces the starting size the same way, before the requests.</li>
 * </ul>
 * A gate never calls a channel while holding its lock, and a channel never calls its gate while holding one of its
 * own; the gate's availability future is completed with no lock held. See package {@code io.sluice.netty} for the
 * lock order.
 */
package io.sluice.netty.gate;
