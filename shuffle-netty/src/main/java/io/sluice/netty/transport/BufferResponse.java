package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import io.sluice.buffers.Buffer;
import io.sluice.netty.gate.InputChannelId;

import java.util.Objects;

/**
 * Server to client: one data buffer or event of a subpartition, for the input channel {@code receiverId}.
 * Body: receiver id (16), sequence number (4), backlog (4), data type (1), buffer size (4), then
 * {@code bufferSize} bytes of data; the frame length is {@link #frameLength(int) frameLength(bufferSize)}.
 * The data type byte carries two flags besides the {@link DataType} code: {@link #FLAG_COMPRESSED} (the payload is
 * an LZ4 block; {@code bufferSize} counts the compressed bytes) and {@link #FLAG_SENDER_LZ4} (set on every data
 * buffer of a sender whose {@code shuffle.compression.codec} is lz4, compressed or not, so that a receiver with
 * another codec fails clearly at the first buffer).
 *
 * <p>Ownership of {@link #buffer()}:
 * <ul>
 *   <li>Sending side: the message owns one reference. {@link NettyMessageEncoder} hands it to Netty, which recycles
 *       it once the bytes are written or the write failed. A message that is never written must be released by
 *       whoever dropped it, with {@link #releaseBuffer()}.</li>
 *   <li>Receiving side: the buffer was taken from the receiving channel by {@link ClientMessageDecoder}; it belongs to
 *       whoever handles the message (normally it is queued at that channel), who recycles it. It is null when the
 *       receiver was unknown or released (the payload was skipped) or when {@code bufferSize} is 0.</li>
 * </ul>
 * The message is {@link ReferenceCounted} through its buffer, so that Netty itself releases a response it drops
 * without passing it to the encoder (a write to a channel whose pipeline is already torn down) or that reaches the
 * end of the receiving pipeline unhandled. Consequently a handler that keeps the buffer must not release the
 * message afterwards (no {@code SimpleChannelInboundHandler} with auto-release).
 * Immutable apart from the buffer's own state, except that the decoder attaches the received payload once, before it
 * passes the message on ({@link #attachPayload}); hand it between threads only through a safe hand-over.
 */
public final class BufferResponse extends CountedResponse<BufferResponse> {

    static final byte ID = 1;

    static final int RECEIVER_ID_OFFSET = 0;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int SEQUENCE_NUMBER_OFFSET = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;
    static final int SEQUENCE_NUMBER_SIZE = Integer.BYTES;
    static final int BACKLOG_OFFSET = SEQUENCE_NUMBER_OFFSET + SEQUENCE_NUMBER_SIZE;
    static final int BACKLOG_SIZE = Integer.BYTES;
    /** The {@link DataType} code with the flags {@link #FLAG_COMPRESSED} and {@link #FLAG_SENDER_LZ4}. */
    static final int DATA_TYPE_OFFSET = BACKLOG_OFFSET + BACKLOG_SIZE;
    static final int DATA_TYPE_SIZE = 1;
    static final int BUFFER_SIZE_OFFSET = DATA_TYPE_OFFSET + DATA_TYPE_SIZE;
    static final int BUFFER_SIZE_SIZE = Integer.BYTES;
    /** The data: {@code bufferSize} bytes. */
    static final int DATA_OFFSET = BUFFER_SIZE_OFFSET + BUFFER_SIZE_SIZE;

    /** The fixed fields before the data: receiver id (16), sequence number (4), backlog (4), data type (1), size (4). */
    static final int HEADER_LENGTH = DATA_OFFSET;

    /** Data type flag: the payload is compressed with lz4. */
    static final int FLAG_COMPRESSED = 0x80;
    /** Data type flag: the sender compresses data buffers (shuffle.compression.codec=lz4). */
    static final int FLAG_SENDER_LZ4 = 0x40;
    private static final int DATA_TYPE_MASK = 0x0F;

    /** Final but for {@link #attachPayload}, which sets it once on the receiving side, before anyone else sees it. */
    private Buffer buffer;
    /**
     * Sending side: what to send instead of a buffer, owned by the message: a ByteBuf holding an LZ4 block.
     */
    private final ReferenceCounted compressedPayload;
    private final boolean compressed;
    private final boolean senderLz4;
    private final InputChannelId receiverId;
    private final int sequenceNumber;
    private final int backlog;
    private final DataType dataType;
    private final int bufferSize;

    /**
     * @param buffer         the data or event (its readable bytes are sent); null only on the receiving side, or when
     *                       {@code bufferSize} is 0. The message takes over one reference (see class comment).
     * @param receiverId     the input channel the buffer is for
     * @param sequenceNumber the buffer's position in the subpartition's output, checked by the receiver
     * @param backlog        data buffers queued at the sender behind this one, >= 0
     * @param dataType       data, event or priority event; must agree with {@code buffer.isBuffer()}
     * @param bufferSize     number of payload bytes; equals {@code buffer.readableBytes()} when buffer is not null
     */
    public BufferResponse(Buffer buffer, InputChannelId receiverId, int sequenceNumber, int backlog,
                          DataType dataType, int bufferSize) {
        this(buffer, null, false, false, receiverId, sequenceNumber, backlog, dataType, bufferSize);
    }

    /**
     * A data buffer from a sender that compresses (shuffle.compression.codec=lz4), sent as it is.
     *
     * @param buffer the data buffer; the message takes over one reference
     */
    public static BufferResponse fromCompressingSender(Buffer buffer, InputChannelId receiverId, int sequenceNumber,
                                                       int backlog) {
        return new BufferResponse(buffer, null, false, true, receiverId, sequenceNumber, backlog,
                DataType.DATA_BUFFER, buffer.readableBytes());
    }

    /**
     * A compressed data buffer: {@code payload}'s readable bytes are its LZ4 block.
     *
     * @param payload the LZ4 block; the message takes it over (Netty releases it once written)
     */
    public static BufferResponse compressed(ByteBuf payload, InputChannelId receiverId, int sequenceNumber,
                                            int backlog) {
        return new BufferResponse(null, payload, true, true, receiverId, sequenceNumber, backlog,
                DataType.DATA_BUFFER, payload.readableBytes());
    }

    private BufferResponse(Buffer buffer, ReferenceCounted compressedPayload, boolean compressed, boolean senderLz4,
                           InputChannelId receiverId, int sequenceNumber, int backlog, DataType dataType,
                           int bufferSize) {
        this.compressedPayload = compressedPayload;
        this.compressed = compressed;
        this.senderLz4 = senderLz4;
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
        this.dataType = Objects.requireNonNull(dataType, "dataType");
        if (bufferSize < 0 || backlog < 0) {
            throw new IllegalArgumentException("bufferSize and backlog must be >= 0, were " + bufferSize + " and "
                    + backlog + " (receiver " + receiverId + ", sequence number " + sequenceNumber + ")");
        }
        if (buffer != null && buffer.readableBytes() != bufferSize) {
            throw new IllegalArgumentException("bufferSize " + bufferSize + " differs from the buffer's "
                    + buffer.readableBytes() + " readable bytes (receiver " + receiverId + ", " + buffer + ")");
        }
        if (buffer != null && buffer.isBuffer() != dataType.isBuffer()) {
            throw new IllegalArgumentException("data type " + dataType + " does not match " + buffer
                    + " (receiver " + receiverId + ")");
        }
        this.buffer = buffer;
        this.sequenceNumber = sequenceNumber;
        this.backlog = backlog;
        this.bufferSize = bufferSize;
    }

    /**
     * The length of the frame of a BufferResponse with {@code bufferSize} payload bytes; a client decoder's
     * maxFrameLength must be at least this for the largest buffer or event it receives.
     */
    public static int frameLength(int bufferSize) {
        return Frame.HEADER_LENGTH + HEADER_LENGTH + bufferSize;
    }

    /** @return the payload (ownership: see the class comment), or null */
    public Buffer buffer() {
        return buffer;
    }

    /** Sending side: the payload (an LZ4 block) to write instead of a buffer, or null. */
    ReferenceCounted wirePayload() {
        return compressedPayload;
    }

    /** Whether the payload on the wire is an LZ4 block. */
    public boolean isCompressed() {
        return compressed;
    }

    /** Whether the sender compresses data buffers (its shuffle.compression.codec is lz4). */
    public boolean isFromCompressingSender() {
        return senderLz4;
    }

    public InputChannelId receiverId() {
        return receiverId;
    }

    public int sequenceNumber() {
        return sequenceNumber;
    }

    public int backlog() {
        return backlog;
    }

    public DataType dataType() {
        return dataType;
    }

    public int bufferSize() {
        return bufferSize;
    }

    /**
     * Recycles the buffer's reference held by this message, if it has a buffer. Call it at most once, and only for
     * a message that is dropped instead of being written (sending side) or handed on (receiving side).
     * Same as {@link #release()}.
     */
    public void releaseBuffer() {
        release();
    }

    /** @return the reference count of the buffer (shared with its other holders and slices); 1 without a buffer */
    @Override
    public int refCnt() {
        if (compressedPayload != null) {
            return compressedPayload.refCnt();
        }
        return buffer == null ? 1 : buffer.refCnt();
    }


    @Override
    public BufferResponse retain(int increment) {
        if (compressedPayload != null) {
            compressedPayload.retain(increment);
        }
        if (buffer != null) {
            for (int i = 0; i < increment; i++) {
                buffer.retainBuffer();
            }
        }
        return this;
    }




    @Override
    public boolean release(int decrement) {
        if (compressedPayload != null) {
            return compressedPayload.release(decrement);
        }
        if (buffer == null) {
            return false;
        }
        for (int i = 0; i < decrement; i++) {
            buffer.recycleBuffer();
        }
        return buffer.isRecycled();
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public int bodyLength() {
        return HEADER_LENGTH;
    }

    @Override
    public void writeBody(ByteBuf out) {
        WireFields.writeId(out, receiverId);
        out.writeInt(sequenceNumber);
        out.writeInt(backlog);
        out.writeByte(dataType.code() | (compressed ? FLAG_COMPRESSED : 0) | (senderLz4 ? FLAG_SENDER_LZ4 : 0));
        out.writeInt(bufferSize);
    }

    /**
     * Reads the {@link #HEADER_LENGTH} header bytes, the receiver id through the connection's {@code receiverIds};
     * the result has no buffer yet.
     */
    static BufferResponse readHeader(ByteBuf in, InputChannelIdReader receiverIds) {
        InputChannelId receiverId = receiverIds.read(in);
        int sequenceNumber = in.readInt();
        int backlog = in.readInt();
        int typeAndFlags = in.readByte() & 0xFF;
        DataType dataType = DataType.fromCode((byte) (typeAndFlags & DATA_TYPE_MASK));
        boolean compressed = (typeAndFlags & FLAG_COMPRESSED) != 0;
        boolean senderLz4 = (typeAndFlags & FLAG_SENDER_LZ4) != 0;
        if ((typeAndFlags & ~(DATA_TYPE_MASK | FLAG_COMPRESSED | FLAG_SENDER_LZ4)) != 0
                || ((compressed || senderLz4) && !dataType.isBuffer()) || (compressed && !senderLz4)) {
            throw new CorruptFrameException(String.format("bad data type byte 0x%02X", typeAndFlags));
        }
        return new BufferResponse(null, null, compressed, senderLz4, receiverId, sequenceNumber, backlog, dataType,
                in.readInt());
    }

    /**
     * Receiving side: makes {@code payload} (filled with exactly {@code bufferSize} bytes) this header's buffer, so
     * that the decoder makes one message per buffer received, not a header and then a message. Only the decoder calls
     * this, once, before it passes the message on.
     *
     * @return this message, which now owns the payload's reference
     * @throws IllegalStateException if the message already has a payload
     */
    BufferResponse attachPayload(Buffer payload) {
        if (buffer != null || compressedPayload != null) {
            throw new IllegalStateException(this + " already carries its payload");
        }
        if (payload.readableBytes() != bufferSize || payload.isBuffer() != dataType.isBuffer()) {
            throw new IllegalArgumentException(payload + " is not the payload of " + this);
        }
        buffer = payload;
        return this;
    }

    /** This header with the decompressed {@code payload} as its buffer; its size is the payload's. */
    BufferResponse withDecompressedBuffer(Buffer payload) {
        return new BufferResponse(payload, null, false, senderLz4, receiverId, sequenceNumber, backlog, dataType,
                payload.readableBytes());
    }

    @Override
    public String toString() {
        return "BufferResponse[" + dataType + (compressed ? " (lz4)" : "") + ", " + bufferSize + " bytes for receiver "
                + receiverId
                + ", sequence number " + sequenceNumber + ", backlog " + backlog
                + (buffer == null && bufferSize > 0 ? ", payload skipped]" : "]");
    }
}
