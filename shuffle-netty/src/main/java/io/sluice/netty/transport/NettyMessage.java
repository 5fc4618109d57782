package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * A message of the Sluice wire protocol. Each subclass is immutable, knows its wire id and writes and reads its own
 * body; {@link NettyMessageEncoder} puts it into a {@link Frame}, {@link ServerMessageDecoder} and
 * {@link ClientMessageDecoder} take it out again.
 *
 * <p>Client to server: {@link PartitionRequest}, {@link AddCredit}, {@link CancelPartitionRequest},
 * {@link CloseRequest}, {@link TaskEventRequest}, {@link ResumeConsumption}, {@link ReleasePartitions} (from a
 * shuffle master). Server to client: {@link BufferResponse},
 * {@link ErrorResponse}. Both directions: {@link Heartbeat}.
 * The hierarchy is closed (package-private constructor).
 */
public abstract class NettyMessage {

    NettyMessage() {
    }

    /** @return the message id written into the frame header */
    public abstract byte id();

    /** @return the number of bytes {@link #writeBody} writes (for a BufferResponse: without the data) */
    abstract int bodyLength();

    /** Writes the body (for a BufferResponse: its fixed header; the encoder appends the data). */
    abstract void writeBody(ByteBuf out);
}
