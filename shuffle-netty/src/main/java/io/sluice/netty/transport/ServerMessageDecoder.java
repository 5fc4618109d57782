package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;
import java.util.function.Function;

/**
 * Decodes the frames a client sends to the server into {@link PartitionRequest}, {@link AddCredit},
 * {@link CancelPartitionRequest}, {@link CloseRequest}, {@link TaskEventRequest}, {@link ResumeConsumption},
 * {@link NewBufferSize}, {@link Heartbeat} and {@link ReleasePartitions}. These messages are small, so a frame is
 * accumulated whole (at most {@code maxFrameLength} bytes, see {@link #maxClientFrameLength()}) and parsed from
 * Netty's cumulation buffer.
 *
 * <p>A frame that breaks the protocol (see {@link Frame}, plus message ids the server does not accept, and bodies
 * that do not match their length) raises {@link CorruptFrameException} as soon as its header has arrived; from then
 * on everything received is discarded, because the stream cannot be re-synchronised. The handler that installed
 * the decoder closes the connection.
 *
 * <p>One instance per channel; only called on that channel's event loop.
 */
public final class ServerMessageDecoder extends ByteToMessageDecoder {

    private enum State { DECODING, FAILED }

    private final int maxFrameLength;

    private State state = State.DECODING;

    /** The receiver ids of this connection's credit messages, read without a new object per message. */
    private final InputChannelIdReader receiverIds = new InputChannelIdReader();

    /** Reads an AddCredit body through {@link #receiverIds}; made once, not per message. */
    private final Function<ByteBuf, AddCredit> addCreditReader = in -> AddCredit.readBody(in, receiverIds);

    /**
     * The largest frame a well-behaved client sends: a {@link TaskEventRequest} carrying an event of
     * {@link io.sluice.api.ResultPartitionWriter#MAX_EVENT_BYTES}. Every other client message is a few dozen
     * bytes. A partly received frame is all the server buffers per connection on the read side, so this bounds it.
     */
    public static int maxClientFrameLength() {
        return TaskEventRequest.frameLength(io.sluice.api.ResultPartitionWriter.MAX_EVENT_BYTES);
    }

    /** @param maxFrameLength the largest frame accepted, header included; larger ones are corrupt */
    public ServerMessageDecoder(int maxFrameLength) {
        this.maxFrameLength = Frame.checkMaxFrameLength(maxFrameLength, Frame.HEADER_LENGTH);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.FAILED) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Frame.HEADER_LENGTH) {
            return;
        }
        try {
            int start = in.readerIndex();
            int frameLength = Frame.validateHeader(in, start, maxFrameLength);
            byte messageId = Frame.messageId(in, start);
            checkAccepted(messageId);
            if (in.readableBytes() < frameLength) {
                return;
            }
            // A view of exactly the body (no copy, no retain): parsed before the frame is skipped below.
            ByteBuf body = in.slice(start + Frame.HEADER_LENGTH, frameLength - Frame.HEADER_LENGTH);
            out.add(readBody(messageId, body));
            in.skipBytes(frameLength);
        } catch (CorruptFrameException e) {
            state = State.FAILED;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private static void checkAccepted(byte messageId) {
        switch (messageId) {
            case PartitionRequest.ID, AddCredit.ID, CancelPartitionRequest.ID, CloseRequest.ID, TaskEventRequest.ID,
                    ResumeConsumption.ID, Heartbeat.ID, ReleasePartitions.ID, NewBufferSize.ID -> {
            }
            default -> throw new CorruptFrameException("message id " + messageId
                    + " is not a client-to-server message; expected one of " + PartitionRequest.ID + ", "
                    + AddCredit.ID + ", " + CancelPartitionRequest.ID + ", " + CloseRequest.ID + ", "
                    + TaskEventRequest.ID + ", " + ResumeConsumption.ID + ", " + Heartbeat.ID + ", "
                    + ReleasePartitions.ID + ", " + NewBufferSize.ID);
        }
    }

    private NettyMessage readBody(byte messageId, ByteBuf body) {
        return switch (messageId) {
            case PartitionRequest.ID -> Frame.readBody(body, PartitionRequest::readBody, "PartitionRequest");
            case AddCredit.ID -> Frame.readBody(body, addCreditReader, "AddCredit");
            case CancelPartitionRequest.ID ->
                    Frame.readBody(body, CancelPartitionRequest::readBody, "CancelPartitionRequest");
            case CloseRequest.ID -> Frame.readBody(body, CloseRequest::readBody, "CloseRequest");
            case TaskEventRequest.ID -> Frame.readBody(body, TaskEventRequest::readBody, "TaskEventRequest");
            case ResumeConsumption.ID -> Frame.readBody(body, ResumeConsumption::readBody, "ResumeConsumption");
            case Heartbeat.ID -> Frame.readBody(body, Heartbeat::readBody, "Heartbeat");
            case ReleasePartitions.ID -> Frame.readBody(body, ReleasePartitions::readBody, "ReleasePartitions");
            case NewBufferSize.ID -> Frame.readBody(body, NewBufferSize::readBody, "NewBufferSize");
            default -> throw new IllegalStateException("message id " + messageId + " passed checkAccepted");
        };
    }
}
