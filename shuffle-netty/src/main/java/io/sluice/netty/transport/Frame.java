package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;

import java.util.function.Function;

/**
 * The frame every Sluice message travels in, and its validation:
 * <pre>
 *   int frameLength | int magic | byte version | byte messageId | body
 * </pre>
 * {@code frameLength} counts the WHOLE frame, its own four bytes included, so the smallest frame (an empty body)
 * has length {@link #HEADER_LENGTH}. All numbers are big-endian (Netty's default). Stateless; any thread.
 */
public final class Frame {

    /** "SLCE" in ASCII: lets a receiver tell garbage (e.g. an HTTP request on the data port) from a frame. */
    public static final int MAGIC = 0x534C4345;

    /**
     * The protocol version this code speaks; a frame of any other version is rejected. Version 2 added
     * {@link Heartbeat} (both directions); version 3 added {@link ReleasePartitions} (client to server, sent by a
     * shuffle master); version 4 added {@link StoredBuffersResponse} (server to client) for blocking partitions'
     * file spans, which version 3 sent as one {@link BufferResponse} each; version 5 added the last subpartition
     * index to {@link PartitionRequest} (a channel reading a range of subpartitions), checksums to the stored
     * buffers of those runs and the runs' file position, {@link ErrorKind#CORRUPT_DATA}, and the data buffer count
     * in a blocking partition's end-of-partition event; version 6 added {@link NewBufferSize} (client to server,
     * buffer debloating).
     */
    public static final byte VERSION = 6;

    /** frameLength (4) + magic (4) + version (1) + messageId (1). */
    public static final int HEADER_LENGTH = 10;

    private static final int MAGIC_OFFSET = 4;
    private static final int VERSION_OFFSET = 8;
    private static final int MESSAGE_ID_OFFSET = 9;

    private Frame() {
    }

    /** Writes the frame header of a frame of {@code frameLength} bytes (header included) carrying message {@code id}. */
    static void writeHeader(ByteBuf out, int frameLength, byte messageId) {
        out.writeInt(frameLength);
        out.writeInt(MAGIC);
        out.writeByte(VERSION);
        out.writeByte(messageId);
    }

    /**
     * Checks the {@link #HEADER_LENGTH} header bytes at {@code index} (indices are absolute; nothing is consumed):
     * magic first (the surest sign of a foreign protocol), then version, then length.
     *
     * @return the frame length, header included
     * @throws CorruptFrameException on a bad magic, another version, or a length below {@link #HEADER_LENGTH} or
     *                               above {@code maxFrameLength}
     */
    static int validateHeader(ByteBuf in, int index, int maxFrameLength) {
        int magic = in.getInt(index + MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new CorruptFrameException(String.format("bad magic 0x%08X, expected 0x%08X", magic, MAGIC));
        }
        byte version = in.getByte(index + VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptFrameException("unsupported protocol version " + version + ", expected " + VERSION);
        }
        int frameLength = in.getInt(index);
        if (frameLength < 0) {
            throw new CorruptFrameException("negative frame length " + frameLength);
        }
        if (frameLength < HEADER_LENGTH) {
            throw new CorruptFrameException("frame length " + frameLength + " is shorter than the "
                    + HEADER_LENGTH + "-byte frame header");
        }
        if (frameLength > maxFrameLength) {
            throw new CorruptFrameException("frame length " + frameLength + " exceeds the decoder's limit of "
                    + maxFrameLength + " bytes");
        }
        return frameLength;
    }

    /** The message id of the header at {@code index} (absolute; nothing is consumed). */
    static byte messageId(ByteBuf in, int index) {
        return in.getByte(index + MESSAGE_ID_OFFSET);
    }

    /** Rejects a body shorter than the smallest body of the message it announces. */
    static void checkMinimumBodyLength(int frameLength, int minimumBodyLength, String messageName) {
        int bodyLength = frameLength - HEADER_LENGTH;
        if (bodyLength < minimumBodyLength) {
            throw new CorruptFrameException("frame length " + frameLength + " is too short for a " + messageName
                    + ": body of " + bodyLength + " bytes, at least " + minimumBodyLength + " needed");
        }
    }

    /**
     * Reads a message body with {@code reader} from {@code body}, which holds exactly the body of one frame, and
     * checks that the reader used all of it. A read past the end or a field value the message rejects becomes a
     * {@link CorruptFrameException}.
     */
    static <M extends NettyMessage> M readBody(ByteBuf body, Function<ByteBuf, M> reader, String messageName) {
        int bodyLength = body.readableBytes();
        M message;
        try {
            message = reader.apply(body);
        } catch (IndexOutOfBoundsException e) {
            throw new CorruptFrameException(messageName + " body of " + bodyLength + " bytes ends early", e);
        } catch (IllegalArgumentException e) {
            throw new CorruptFrameException("invalid " + messageName + ": " + e.getMessage(), e);
        }
        if (body.isReadable()) {
            throw new CorruptFrameException(messageName + " body of " + bodyLength + " bytes has "
                    + body.readableBytes() + " bytes left over after " + message);
        }
        return message;
    }

    /** Checks a maximum frame length given to a decoder. */
    static int checkMaxFrameLength(int maxFrameLength, int smallestUsefulFrame) {
        if (maxFrameLength < smallestUsefulFrame) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength
                    + " is below the smallest frame this decoder must accept (" + smallestUsefulFrame + " bytes)");
        }
        return maxFrameLength;
    }
}
