package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferTrace;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.FileSpan;
import io.sluice.netty.partition.StoredChecksum;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * Decodes the frames a server sends to a client into {@link BufferResponse}, {@link ErrorResponse} and
 * {@link Heartbeat}, copying
 * BufferResponse payloads straight from the socket's ByteBufs into a buffer of the receiving channel, across as
 * many reads as the payload spans. A {@link StoredBuffersResponse} (a run of a blocking partition's stored buffers)
 * is split into one BufferResponse per stored buffer, numbered on from its first sequence number, each decoded as a
 * BufferResponse of its own would be, after its checksum is verified: a stored buffer whose bytes fail it is recycled
 * and a {@link CorruptStoredBuffer} handed on in its place (the frames stay in step, so only that channel fails).
 * Only headers are accumulated: the {@link Frame} header and the BufferResponse
 * header in one ByteBuf of {@value #HEADER_CAPACITY} bytes, and an ErrorResponse body (at most
 * {@code maxFrameLength}) in a ByteBuf of its own size. So Netty never holds a payload.
 *
 * <p>Where the payload goes: a {@link DataType#DATA_BUFFER} into
 * {@link NetworkBufferAllocator#allocatePooledNetworkBuffer}, an event into
 * {@link NetworkBufferAllocator#allocateUnPooledNetworkBuffer}. When the allocator returns null (unknown or released
 * receiver), exactly {@code bufferSize} bytes are skipped and the response is still delivered, with a null buffer,
 * so that the client handler can cancel the request; the frames after it decode normally. An empty payload takes
 * no buffer. Ownership of a filled buffer passes with the response to the next handler.
 *
 * <p>An event's payload must be a valid event ({@link EventSerializer}: at least its type tag, and a known one); an
 * empty event or an unknown tag is a protocol violation like a bad header.
 *
 * <p>A protocol violation raises {@link CorruptFrameException}; from then on everything received is discarded and
 * the installer is expected to close the connection. When the channel closes or the handler is removed, a
 * half-filled buffer is recycled and the accumulation ByteBufs are released.
 *
 * <p>Cost per data buffer received, counted from the code (shallow sizes as in {@link NettyMessageEncoder}'s class
 * comment): here one new object, the {@link BufferResponse} (48 bytes), made from the header and completed with its
 * payload in place. The receiver id comes from {@link InputChannelIdReader} (the same instance for every buffer of a
 * channel), and the payload is copied through the target segment's owner view (made once with the segment), so no
 * {@code ByteBuffer} is made per buffer. The payload is copied once, from the socket's read buffer (pooled, released
 * at once) into the receiving channel's segment. Downstream, per buffer: the remote channel makes a {@code Buffer} and
 * its {@code ReferenceCount} when the segment comes back to it (40 + 24), and the gate hands the buffer out in an
 * {@code Optional} and a {@code ShuffleBufferOrEvent} (16 + 24).
 *
 * <p>One instance per channel; only called on that channel's event loop (so no field needs a lock).
 */
public final class ClientMessageDecoder extends ChannelInboundHandlerAdapter {

    /** The largest header accumulated: frame header plus BufferResponse header, or a StoredBuffersResponse's. */
    static final int HEADER_CAPACITY = Frame.HEADER_LENGTH + BufferResponse.HEADER_LENGTH
            > StoredBuffersResponse.HEADER_LENGTH ? Frame.HEADER_LENGTH + BufferResponse.HEADER_LENGTH
            : StoredBuffersResponse.HEADER_LENGTH;

    /** Where the decoder is in the byte stream; each state names what the next bytes are. */
    private enum State {
        FRAME_HEADER,
        BUFFER_RESPONSE_HEADER,
        /** The fixed fields of a {@link StoredBuffersResponse}. */
        STORED_BUFFERS_HEADER,
        /** The stored header of the run's next buffer; its data follows as a BUFFER_RESPONSE_PAYLOAD. */
        STORED_BUFFER_HEADER,
        BUFFER_RESPONSE_PAYLOAD,
        /** An LZ4 block, accumulated, then decompressed into the target buffer. */
        COMPRESSED_PAYLOAD,
        SKIPPED_PAYLOAD,
        ERROR_RESPONSE_BODY,
        /** A corrupt frame was seen: input is discarded. */
        FAILED,
        /** The channel closed or the handler was removed: everything is released. */
        CLOSED
    }

    private final NetworkBufferAllocator allocator;
    private final int maxFrameLength;
    /** lz4 when this environment's shuffle.compression.codec is lz4, else null. */
    private final BufferCompressor decompressor;
    /** Corrected for decompressed buffers so that bytesReceived counts the bytes on the wire; may be null. */
    private final TransportMetrics metrics;

    /** Accumulates a compressed payload. */
    private ByteBuf compressedBody;

    private State state = State.FRAME_HEADER;

    /** Accumulates the frame header, then the BufferResponse header; allocated in handlerAdded. */
    private ByteBuf headerBuffer;

    /** Length of the frame being decoded, header included. */
    private int frameLength;

    /** The BufferResponse being decoded, still without its buffer. */
    private BufferResponse pendingResponse;

    /** The receiver ids of this connection, read without a new object per buffer. */
    private final InputChannelIdReader receiverIds = new InputChannelIdReader();

    /** Reads a BufferResponse header through {@link #receiverIds}; made once, not per header. */
    private final Function<ByteBuf, BufferResponse> headerReader;

    /** The buffer the payload goes into (owned by this decoder until the response is delivered), or null. */
    private Buffer target;

    /**
     * The target's {@linkplain Buffer#getOwnerView owner view} of the payload's bytes: its position the next byte to
     * copy, its limit where the payload ends; used only while {@link #target} is this decoder's.
     */
    private ByteBuffer targetView;

    /** Payload bytes still to skip in {@link State#SKIPPED_PAYLOAD}. */
    private int bytesToSkip;

    /** Accumulates an ErrorResponse body. */
    private ByteBuf errorBody;

    /** The run of stored buffers being split, header only; null outside a run. */
    private StoredBuffersResponse run;
    /** Buffers of {@link #run} not yet started. */
    private int runBuffersLeft;
    /** Stored bytes of {@link #run} not yet read (headers and data). */
    private long runBytesLeft;
    /** Sequence number of the run's next buffer. */
    private int runSequenceNumber;
    /** Where the run's next stored header is in the producer's data file. */
    private long runFilePosition;

    /** Verifies the checksums of stored buffers. */
    private final StoredChecksum checksum = new StoredChecksum();
    /** Whether the payload being copied is a stored buffer with a checksum to verify; then the fields below. */
    private boolean pendingChecksummed;
    private int pendingChecksum;
    private long pendingOffset;
    private long pendingHeaderWord;

    /** The largest StoredBuffersResponse frame accepted: {@link StoredBuffersResponse#MAX_BUFFERS} full buffers. */
    private final int maxRunFrameLength;

    /**
     * @param allocator      provides the buffers payloads are decoded into
     * @param maxFrameLength the largest frame accepted, header included; at least
     *                       {@link BufferResponse#frameLength(int) BufferResponse.frameLength(segment size)}
     */
    public ClientMessageDecoder(NetworkBufferAllocator allocator, int maxFrameLength) {
        this(allocator, maxFrameLength, null, null);
    }

    /**
     * @param decompressor lz4 when this environment compresses (shuffle.compression.codec=lz4), else null; the
     *                     sender must agree, or the first data buffer fails the connection naming the option
     * @param metrics      whose bytesReceived is corrected to the compressed size of decompressed buffers; or null
     */
    public ClientMessageDecoder(NetworkBufferAllocator allocator, int maxFrameLength, BufferCompressor decompressor,
                                TransportMetrics metrics) {
        if (allocator == null) {
            throw new NullPointerException("allocator");
        }
        this.decompressor = decompressor;
        this.metrics = metrics;
        this.allocator = allocator;
        this.maxFrameLength = Frame.checkMaxFrameLength(maxFrameLength, HEADER_CAPACITY);
        this.headerReader = in -> BufferResponse.readHeader(in, receiverIds);
        this.maxRunFrameLength = (int) Math.min(Integer.MAX_VALUE,
                StoredBuffersResponse.maxFrameLength(maxFrameLength - BufferResponse.frameLength(0)));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        headerBuffer = ctx.alloc().buffer(HEADER_CAPACITY, HEADER_CAPACITY);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            decode(ctx, in);
        } catch (RuntimeException e) {
            // Whatever went wrong, the position in the stream is lost: stop decoding, give back what we hold.
            releasePartialFrame();
            state = State.FAILED;
            throw e;
        } finally {
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        close();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        close();
    }

    private void decode(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable()) {
            switch (state) {
                case FRAME_HEADER -> readFrameHeader(ctx, in);
                case BUFFER_RESPONSE_HEADER -> readBufferResponseHeader(ctx, in);
                case STORED_BUFFERS_HEADER -> readStoredBuffersHeader(in);
                case STORED_BUFFER_HEADER -> readStoredBufferHeader(ctx, in);
                case BUFFER_RESPONSE_PAYLOAD -> copyPayload(ctx, in);
                case COMPRESSED_PAYLOAD -> readCompressedPayload(ctx, in);
                case SKIPPED_PAYLOAD -> skipPayload(ctx, in);
                case ERROR_RESPONSE_BODY -> readErrorResponseBody(ctx, in);
                case FAILED, CLOSED -> {
                    return;
                }
            }
        }
    }

    private void readFrameHeader(ChannelHandlerContext ctx, ByteBuf in) {
        if (!accumulate(headerBuffer, in, Frame.HEADER_LENGTH)) {
            return;
        }
        int index = headerBuffer.readerIndex();
        byte messageId = Frame.messageId(headerBuffer, index);
        // A run of stored buffers is the one frame larger than a buffer; every other frame keeps the usual limit.
        frameLength = Frame.validateHeader(headerBuffer, index,
                messageId == StoredBuffersResponse.ID ? maxRunFrameLength : maxFrameLength);
        headerBuffer.clear();
        switch (messageId) {
            case StoredBuffersResponse.ID -> {
                Frame.checkMinimumBodyLength(frameLength, StoredBuffersResponse.HEADER_LENGTH,
                        "StoredBuffersResponse");
                state = State.STORED_BUFFERS_HEADER;
            }
            case BufferResponse.ID -> {
                Frame.checkMinimumBodyLength(frameLength, BufferResponse.HEADER_LENGTH, "BufferResponse");
                state = State.BUFFER_RESPONSE_HEADER;
            }
            case ErrorResponse.ID -> {
                Frame.checkMinimumBodyLength(frameLength, ErrorResponse.MIN_BODY_LENGTH, "ErrorResponse");
                int bodyLength = frameLength - Frame.HEADER_LENGTH;
                errorBody = ctx.alloc().buffer(bodyLength, bodyLength);
                state = State.ERROR_RESPONSE_BODY;
            }
            case Heartbeat.ID -> {
                if (frameLength != Frame.HEADER_LENGTH) {
                    throw new CorruptFrameException("Heartbeat frame of " + frameLength + " bytes; a heartbeat has "
                            + "an empty body (" + Frame.HEADER_LENGTH + " bytes)");
                }
                deliver(ctx, Heartbeat.INSTANCE);
            }
            default -> throw new CorruptFrameException("message id " + messageId
                    + " is not a server-to-client message; expected " + BufferResponse.ID + ", "
                    + StoredBuffersResponse.ID + ", " + ErrorResponse.ID + " or " + Heartbeat.ID);
        }
    }

    private void readBufferResponseHeader(ChannelHandlerContext ctx, ByteBuf in) {
        if (!accumulate(headerBuffer, in, BufferResponse.HEADER_LENGTH)) {
            return;
        }
        BufferResponse header = Frame.readBody(headerBuffer, headerReader, "BufferResponse header");
        headerBuffer.clear();
        if (BufferTrace.ENABLED && header.dataType().isBuffer()) {
            BufferTrace.record(BufferTrace.Hop.CLIENT_READ, header.receiverId().hashCode(), header.sequenceNumber(),
                    null);
        }
        int bufferSize = header.bufferSize();
        if (BufferResponse.frameLength(bufferSize) != frameLength) {
            throw new CorruptFrameException("BufferResponse announces " + bufferSize + " bytes, but its frame of "
                    + frameLength + " bytes holds " + (frameLength - BufferResponse.frameLength(0))
                    + " (receiver " + header.receiverId() + ")");
        }
        if (header.dataType().isBuffer()) {
            checkCodec(header.isFromCompressingSender(), header.receiverId());
        }
        startPayload(ctx, header);
    }

    /**
     * Starts on the payload of {@code header} (checked): delivers an empty one at once, else takes the receiving
     * channel's buffer and moves on to copying, decompressing or skipping.
     */
    private void startPayload(ChannelHandlerContext ctx, BufferResponse header) {
        int bufferSize = header.bufferSize();
        if (bufferSize == 0) {
            if (!header.dataType().isBuffer()) {
                throw new CorruptFrameException(header + " is empty, but every event carries at least its "
                        + EventSerializer.TAG_BYTES + "-byte type tag");
            }
            deliver(ctx, header);
            return;
        }
        if (!header.dataType().isBuffer() && bufferSize > EventSerializer.MAX_SERIALIZED_EVENT_BYTES) {
            // Events are allocated on the heap outside the memory budget: never for more than the event limit.
            throw new CorruptFrameException(header + ": event of " + bufferSize + " bytes exceeds the limit of "
                    + EventSerializer.MAX_SERIALIZED_EVENT_BYTES + " bytes");
        }
        pendingResponse = header;
        Buffer buffer = header.dataType().isBuffer()
                ? allocator.allocatePooledNetworkBuffer(header.receiverId())
                : allocator.allocateUnPooledNetworkBuffer(bufferSize, header.dataType());
        if (buffer == null) {
            bytesToSkip = bufferSize;
            state = State.SKIPPED_PAYLOAD;
            return;
        }
        target = buffer;
        if (buffer.getMaxCapacity() < bufferSize) {
            throw new CorruptFrameException(header + " does not fit the receiver's buffer of "
                    + buffer.getMaxCapacity() + " bytes; do both ends use the same shuffle.memory.segment-size?");
        }
        if (!header.dataType().isBuffer()) {
            buffer.tagAsEvent();
        }
        if (header.isCompressed()) {
            compressedBody = ctx.alloc().directBuffer(bufferSize, bufferSize);
            state = State.COMPRESSED_PAYLOAD;
            return;
        }
        targetView = buffer.getOwnerView(0, bufferSize);
        state = State.BUFFER_RESPONSE_PAYLOAD;
    }

    private void readStoredBuffersHeader(ByteBuf in) {
        if (!accumulate(headerBuffer, in, StoredBuffersResponse.HEADER_LENGTH)) {
            return;
        }
        StoredBuffersResponse header = Frame.readBody(headerBuffer, StoredBuffersResponse::readHeader,
                "StoredBuffersResponse header");
        headerBuffer.clear();
        if (StoredBuffersResponse.frameLength(header.storedBytes()) != frameLength) {
            throw new CorruptFrameException(header + " does not fill its frame of " + frameLength + " bytes");
        }
        // Only a sender without compression sends runs from its files.
        checkCodec(false, header.receiverId());
        run = header;
        runBuffersLeft = header.bufferCount();
        runBytesLeft = header.storedBytes();
        runSequenceNumber = header.firstSequenceNumber();
        runFilePosition = header.filePosition();
        state = State.STORED_BUFFER_HEADER;
    }

    /** Reads the stored header of the run's next buffer and starts on its data, as a BufferResponse of its own. */
    private void readStoredBufferHeader(ChannelHandlerContext ctx, ByteBuf in) {
        if (runBytesLeft < FileSpan.STORED_HEADER_BYTES) {
            throw new CorruptFrameException(run + ": " + runBuffersLeft + " buffers left but only " + runBytesLeft
                    + " stored bytes");
        }
        if (!accumulate(headerBuffer, in, FileSpan.STORED_HEADER_BYTES)) {
            return;
        }
        long headerWord = headerBuffer.getLong(headerBuffer.readerIndex());
        int length = headerBuffer.readInt();
        byte kind = headerBuffer.readByte();
        byte flags = headerBuffer.readByte();
        short reserved = headerBuffer.readShort();
        int storedChecksum = headerBuffer.readInt();
        headerBuffer.clear();
        runBytesLeft -= FileSpan.STORED_HEADER_BYTES;
        // A bad header loses the place in the run: the connection fails. (A damaged buffer whose header still fits
        // is caught by its checksum, which covers the header too, and fails only its channel.)
        if (kind != FileSpan.KIND_DATA || (flags & ~FileSpan.FLAG_CHECKSUM) != 0 || reserved != 0 || length < 0
                || length > runBytesLeft || (runBuffersLeft == 1 && length != runBytesLeft)) {
            throw new CorruptFrameException(run + ": bad stored buffer header (length " + length + ", kind " + kind
                    + ", flags " + flags + ") at offset " + runFilePosition + " of the data file, with "
                    + runBytesLeft + " stored bytes and " + runBuffersLeft + " buffers left");
        }
        pendingChecksummed = (flags & FileSpan.FLAG_CHECKSUM) != 0;
        pendingChecksum = storedChecksum;
        pendingOffset = runFilePosition;
        pendingHeaderWord = headerWord;
        runFilePosition += FileSpan.STORED_HEADER_BYTES + (long) length;
        runBytesLeft -= length;
        runBuffersLeft--;
        // What a separate response would have said: the buffers behind this one are the rest of the run and the
        // sender's backlog behind the run.
        BufferResponse header = new BufferResponse(null, run.receiverId(), runSequenceNumber++,
                run.backlog() + runBuffersLeft, DataType.DATA_BUFFER, length);
        if (BufferTrace.ENABLED) {
            BufferTrace.record(BufferTrace.Hop.CLIENT_READ, header.receiverId().hashCode(), header.sequenceNumber(),
                    null);
        }
        if (runBuffersLeft == 0) {
            run = null;
        }
        startPayload(ctx, header);
    }

    private void copyPayload(ChannelHandlerContext ctx, ByteBuf in) {
        int end = targetView.limit();
        targetView.limit(targetView.position() + Math.min(in.readableBytes(), targetView.remaining()));
        in.readBytes(targetView); // exactly to the lowered limit
        targetView.limit(end);
        if (targetView.hasRemaining()) {
            return;
        }
        Buffer filled = target;
        filled.setSize(pendingResponse.bufferSize());
        if (!filled.isBuffer()) {
            checkEvent(filled); // while still the target: a corrupt event is recycled with the partial frame
        }
        if (pendingChecksummed) {
            int computed = checksum.ofBuffer(pendingOffset, pendingHeaderWord,
                    filled.getOwnerView(0, pendingResponse.bufferSize()));
            if (computed != pendingChecksum) {
                // Never handed on: the channel fails instead, and the frames after it decode as usual.
                target = null;
                targetView = null;
                filled.recycleBuffer();
                deliverCorrupt(ctx, new CorruptStoredBuffer(pendingResponse.receiverId(),
                        pendingResponse.sequenceNumber(), pendingOffset, pendingResponse.bufferSize(), pendingChecksum,
                        computed));
                return;
            }
        }
        BufferResponse response = pendingResponse.attachPayload(filled); // a failure leaves it the target, recycled
        target = null;
        targetView = null;
        deliver(ctx, response);
    }

    /**
     * Fails the connection when the sender's codec ({@code senderLz4}) is not this environment's: never decode wrong
     * bytes.
     */
    private void checkCodec(boolean senderLz4, InputChannelId receiver) {
        if (senderLz4 != (decompressor != null)) {
            String key = ShuffleOptions.COMPRESSION_CODEC.key();
            throw new CorruptFrameException("compression codec mismatch: the producer sends data buffers with "
                    + key + "=" + (senderLz4 ? "lz4" : "none") + ", but this environment has " + key + "="
                    + (decompressor != null ? "lz4" : "none") + "; set the same codec on both ends (receiver "
                    + receiver + ")");
        }
    }

    private void readCompressedPayload(ChannelHandlerContext ctx, ByteBuf in) {
        if (!accumulate(compressedBody, in, compressedBody.maxCapacity())) {
            return;
        }
        Buffer filled = target;
        int wireSize = compressedBody.readableBytes();
        int size;
        try {
            size = decompressor.decompress(compressedBody.nioBuffer(), 0, wireSize,
                    filled.getNioBuffer(0, filled.getMaxCapacity()), 0, filled.getMaxCapacity(),
                    pendingResponse.toString());
        } catch (IOException e) {
            throw new CorruptFrameException(e.getMessage(), e);
        }
        compressedBody.release();
        compressedBody = null;
        filled.setSize(size);
        target = null;
        if (metrics != null) {
            metrics.onDecompressed(wireSize, size);
        }
        deliver(ctx, pendingResponse.withDecompressedBuffer(filled));
    }

    /** Rejects an event whose payload does not start with a known event tag: no consumer could read it. */
    private void checkEvent(Buffer event) {
        try {
            EventSerializer.typeOf(event);
        } catch (IllegalArgumentException e) {
            throw new CorruptFrameException(pendingResponse + " does not carry a valid event: " + e.getMessage(), e);
        }
    }

    private void skipPayload(ChannelHandlerContext ctx, ByteBuf in) {
        int chunk = Math.min(in.readableBytes(), bytesToSkip);
        in.skipBytes(chunk);
        bytesToSkip -= chunk;
        if (bytesToSkip == 0) {
            deliver(ctx, pendingResponse);
        }
    }

    private void readErrorResponseBody(ChannelHandlerContext ctx, ByteBuf in) {
        if (!accumulate(errorBody, in, errorBody.maxCapacity())) {
            return;
        }
        ErrorResponse response = Frame.readBody(errorBody, ErrorResponse::readBody, "ErrorResponse");
        errorBody.release();
        errorBody = null;
        deliver(ctx, response);
    }

    /** Passes a decoded message on (with it, the ownership of its buffer) and starts on the next frame. */
    private void deliver(ChannelHandlerContext ctx, NettyMessage message) {
        nextElement();
        ctx.fireChannelRead(message);
    }

    /** Passes on the report of a stored buffer that failed its checksum, and goes on with the next element. */
    private void deliverCorrupt(ChannelHandlerContext ctx, CorruptStoredBuffer corrupt) {
        nextElement();
        ctx.fireChannelRead(corrupt);
    }

    /** Done with the current element: the run's next buffer, or the next frame. */
    private void nextElement() {
        pendingResponse = null;
        pendingChecksummed = false;
        state = runBuffersLeft > 0 ? State.STORED_BUFFER_HEADER : State.FRAME_HEADER;
    }

    /**
     * Copies from {@code in} into {@code accumulator} until it holds {@code needed} bytes.
     *
     * @return true when it holds them
     */
    private static boolean accumulate(ByteBuf accumulator, ByteBuf in, int needed) {
        int chunk = Math.min(needed - accumulator.readableBytes(), in.readableBytes());
        accumulator.writeBytes(in, chunk);
        return accumulator.readableBytes() == needed;
    }

    private void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        releasePartialFrame();
        if (headerBuffer != null) {
            headerBuffer.release();
            headerBuffer = null;
        }
    }

    /** Recycles a half-filled target buffer and releases a half-read ErrorResponse body. */
    private void releasePartialFrame() {
        pendingResponse = null;
        pendingChecksummed = false;
        run = null;
        runBuffersLeft = 0;
        targetView = null;
        if (target != null) {
            Buffer halfFilled = target;
            target = null;
            halfFilled.recycleBuffer();
        }
        if (errorBody != null) {
            errorBody.release();
            errorBody = null;
        }
        if (compressedBody != null) {
            compressedBody.release();
            compressedBody = null;
        }
    }
}
