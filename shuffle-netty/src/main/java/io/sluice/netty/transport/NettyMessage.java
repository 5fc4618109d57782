package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

/**
 * A message of the Sluice wire protocol: immutable, it knows its wire id and writes its own body;
 * {@link NettyMessageEncoder} puts it into a {@link Frame}, {@link ServerMessageDecoder} and
 * {@link ClientMessageDecoder} take it out again (each message's static {@code readBody}). Each message names the
 * offset and size of every body field as constants ({@code *_OFFSET}, {@code *_SIZE}, offsets counted from the first
 * body byte, right after the {@link Frame#HEADER_LENGTH}-byte frame header).
 *
 * <p>Client to server: {@link PartitionRequest}, {@link AddCredit}, {@link CancelPartitionRequest},
 * {@link CloseRequest}, {@link TaskEventRequest}, {@link ResumeConsumption}, {@link NewBufferSize} (buffer
 * debloating), {@link ReleasePartitions} (from a shuffle master). Server to client: {@link BufferResponse},
 * {@link StoredBuffersResponse} (a run of a blocking partition's buffers from its file), {@link ErrorResponse}. Both
 * directions: {@link Heartbeat}. The value messages are records (equality by their fields); {@link BufferResponse}
 * is a class because it owns a buffer reference. Messages with the same body share
 * its code: {@link EmptyBodyMessage} (no body), {@link ReceiverOnlyMessage} (the receiver id alone) and
 * {@link ReceiverValueMessage} (an int, then the receiver id). Sealed: the protocol has exactly these messages.
 */
public sealed interface NettyMessage permits PartitionRequest, ReceiverValueMessage, ReceiverOnlyMessage,
        EmptyBodyMessage, TaskEventRequest, ReleasePartitions, CountedResponse, ErrorResponse {

    /** @return the message id written into the frame header */
    byte id();

    /** @return the number of bytes {@link #writeBody} writes (for a BufferResponse: without the data) */
    int bodyLength();

    /** Writes the body (for a BufferResponse: its fixed header; the encoder appends the data). Encoder only. */
    void writeBody(ByteBuf out);
}
