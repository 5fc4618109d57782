package io.sluice.netty.transport;

import io.sluice.buffers.Buffer;
import io.sluice.netty.gate.InputChannelId;

/**
 * Where {@link ClientMessageDecoder} gets the buffers it decodes {@link BufferResponse} payloads into, so that data
 * goes from the socket straight into the receiving channel's own memory. Only called on the event loop of the
 * decoder's channel.
 *
 * <p>Implementations should not throw: a channel that cannot take a buffer is failed by the implementation and
 * {@code null} returned, so that the other channels of the connection go on. An exception thrown here fails the
 * whole connection.
 */
public interface NetworkBufferAllocator {

    /**
     * A buffer of the receiver's channel to decode a DATA buffer into (its ownership passes to the decoded
     * {@link BufferResponse}), or null when the receiver is unknown/released/has no buffer: the payload is then
     * skipped and the response is delivered with a null buffer.
     */
    Buffer allocatePooledNetworkBuffer(InputChannelId receiverId);

    /**
     * A buffer for an event of {@code size} bytes (heap memory, {@code BufferRecycler.DISCARD}); its ownership
     * passes to the decoded {@link BufferResponse}. Null skips the payload like an unknown receiver.
     */
    Buffer allocateUnPooledNetworkBuffer(int size, DataType dataType);
}
