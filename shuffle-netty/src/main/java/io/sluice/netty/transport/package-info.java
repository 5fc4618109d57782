/**
 * The Netty transport between environments: the wire protocol ({@link io.sluice.netty.transport.NettyMessage} and
 * its messages in a {@link io.sluice.netty.transport.Frame}, {@link io.sluice.netty.transport.NettyMessageEncoder},
 * {@link io.sluice.netty.transport.ServerMessageDecoder}, {@link io.sluice.netty.transport.ClientMessageDecoder}); the
 * server side ({@code PartitionRequestServerHandler}, and per connection a
 * {@code PartitionRequestQueue} of {@code CreditBasedViewReader}s
 * that send buffers against credit); the client side ({@link io.sluice.netty.transport.PartitionRequestClientFactory},
 * one shared {@link io.sluice.netty.transport.PartitionRequestClient} per
 * {@link io.sluice.netty.gate.ConnectionId}, and its {@link io.sluice.netty.transport.CreditBasedClientHandler}; they
 * implement the gate's {@code ProducerConnections} and {@code ProducerConnection});
 * and {@link io.sluice.netty.transport.ConnectionManager}, which owns the event loops and the data server. Every
 * connection carries heartbeats ({@code HeartbeatHandler}: a frame when there was nothing else to send, failure when
 * no complete frame arrived for the timeout); the server bounds what a client can make it hold
 * ({@code ServerMessageDecoder.maxClientFrameLength()}, {@code ServerReadThrottle}) and, with TLS, refuses untrusted
 * peers with one log line ({@code TlsHandshakeGuard}). With TLS the SslHandler encrypts each payload into buffers of
 * its own: the sender's zero-copy path described below then ends at the SslHandler.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>A connection's event loop runs its handlers, decoders, encoder, request queue and view readers. Data goes from
 *       a producer's buffer to the socket without a copy (its bytes are wrapped, not copied, see
 *       {@link io.sluice.netty.transport.NettyMessageEncoder}). On the receiving side each payload is copied once,
 *       from Netty's read buffer (released at once) into a buffer of the receiving channel, so that Netty never holds
 *       a payload (see {@link io.sluice.netty.transport.ClientMessageDecoder}).</li>
 *   <li>Producer threads (a subpartition's notification) and consumer or recycling threads (new credit) reach an event
 *       loop only through one lock-free queue per connection and at most one pending task: notifications are
 *       coalesced, Netty state is never touched from them.</li>
 *   <li>Consumer threads open connections through the client factory (blocking at most the connect timeout, never on
 *       an event loop) and write requests, cancels, resumes, task events and buffer sizes with {@code writeAndFlush};
 *       the environment's timer thread re-sends the requests it retries (each followed by the channel's buffer size,
 *       once one was announced) and, with {@code shuffle.debloat.period} above 0, sends the gates' buffer
 *       sizes.</li>
 *   <li>{@code ConnectionManager.start()} and {@code close()} run on the environment's caller; {@code close()} waits
 *       for the event loops to stop.</li>
 * </ul>
 * Buffers handed to Netty ({@code OffHeapPayloadByteBuf},
 * {@code HeapPayloadByteBuf}) carry one reference of the Sluice buffer; Netty releases it
 * after the write (or its failure), which recycles the buffer on the event loop.
 */
package io.sluice.netty.transport;
