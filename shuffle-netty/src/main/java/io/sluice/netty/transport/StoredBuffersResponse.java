package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.FileSpan;

import java.util.Objects;

/**
 * Server to client: a run of consecutive data buffers of a blocking partition's subpartition, sent straight from its
 * data file, for the input channel {@code receiverId}. Body: receiver id (16), first sequence number (4), backlog
 * (4), buffer count (4), stored bytes (4), file position (8: where the run starts in the data file), then
 * {@code storedBytes} bytes: {@code bufferCount} stored buffers as the data file holds them, each a
 * {@value FileSpan#STORED_HEADER_BYTES}-byte header ({@code int length | byte kind 0 | byte flags (0, or 2:
 * checksummed) | short 0 | int crc32c}) and its data (see {@link FileSpan}). The receiver verifies each buffer's
 * checksum, which covers its position in the file: the sender never looked at these bytes.
 *
 * <p>Why a message of its own: the bytes of a run are one {@link FileRegion}, so the sender makes one sendfile call
 * and one small header write per run instead of per 32 KiB buffer, and the socket carries full segments instead of
 * a 39-byte segment before each buffer. The receiver ({@link ClientMessageDecoder}) splits the run into one
 * {@link BufferResponse} per buffer, numbered from {@code firstSequenceNumber}, the i-th of n with backlog
 * {@code backlog + n - 1 - i}; so everything after the decoder sees exactly what separate responses would have
 * delivered. Each buffer of the run took one credit of the receiver. Only uncompressed data: a sender that
 * compresses never sends this message.
 *
 * <p>Ownership: on the sending side the message owns its {@link FileRegion}; {@link NettyMessageEncoder} hands it to
 * Netty, which releases it once written (or on failure); a message that is never written is released by whoever
 * dropped it. On the receiving side only the header is read ({@link #readHeader}); it holds no region. Immutable.
 */
public final class StoredBuffersResponse extends CountedResponse<StoredBuffersResponse> {

    static final byte ID = 9;

    static final int RECEIVER_ID_OFFSET = 0;
    static final int RECEIVER_ID_SIZE = WireFields.ID_LENGTH;
    static final int FIRST_SEQUENCE_NUMBER_OFFSET = RECEIVER_ID_OFFSET + RECEIVER_ID_SIZE;
    static final int FIRST_SEQUENCE_NUMBER_SIZE = Integer.BYTES;
    static final int BACKLOG_OFFSET = FIRST_SEQUENCE_NUMBER_OFFSET + FIRST_SEQUENCE_NUMBER_SIZE;
    static final int BACKLOG_SIZE = Integer.BYTES;
    static final int BUFFER_COUNT_OFFSET = BACKLOG_OFFSET + BACKLOG_SIZE;
    static final int BUFFER_COUNT_SIZE = Integer.BYTES;
    static final int STORED_BYTES_OFFSET = BUFFER_COUNT_OFFSET + BUFFER_COUNT_SIZE;
    static final int STORED_BYTES_SIZE = Integer.BYTES;
    static final int FILE_POSITION_OFFSET = STORED_BYTES_OFFSET + STORED_BYTES_SIZE;
    static final int FILE_POSITION_SIZE = Long.BYTES;
    /** The stored buffers: {@code storedBytes} bytes. */
    static final int DATA_OFFSET = FILE_POSITION_OFFSET + FILE_POSITION_SIZE;

    /** The fixed fields before the stored buffers. */
    static final int HEADER_LENGTH = DATA_OFFSET;

    /**
     * The most buffers one run may carry. A sender bounds its runs by the receiver's credit, which the receiver's
     * buffers bound; this bounds the frame a receiver accepts (with a segment of 32 KiB, 1024 buffers are 32 MiB).
     */
    static final int MAX_BUFFERS = 1024;

    private final FileRegion region;
    private final InputChannelId receiverId;
    private final int firstSequenceNumber;
    private final int backlog;
    private final int bufferCount;
    private final int storedBytes;
    private final long filePosition;

    private StoredBuffersResponse(FileRegion region, InputChannelId receiverId, int firstSequenceNumber, int backlog,
                                  int bufferCount, int storedBytes, long filePosition) {
        this.region = region;
        this.receiverId = Objects.requireNonNull(receiverId, "receiverId");
        if (bufferCount < 1 || bufferCount > MAX_BUFFERS || backlog < 0
                || storedBytes < (long) bufferCount * FileSpan.STORED_HEADER_BYTES || filePosition < 0) {
            throw new IllegalArgumentException("a run of stored buffers needs 1 to " + MAX_BUFFERS + " buffers, a"
                    + " backlog >= 0, at least " + FileSpan.STORED_HEADER_BYTES + " stored bytes per buffer and a"
                    + " file position >= 0; got " + bufferCount + " buffers, backlog " + backlog + ", " + storedBytes
                    + " stored bytes at " + filePosition + " (receiver " + receiverId + ", first sequence number "
                    + firstSequenceNumber + ")");
        }
        this.firstSequenceNumber = firstSequenceNumber;
        this.backlog = backlog;
        this.bufferCount = bufferCount;
        this.storedBytes = storedBytes;
        this.filePosition = filePosition;
    }

    /**
     * The run of {@code span}, sent from {@code region}.
     *
     * @param region the span's stored bytes (its count is the span's length); the message takes it over
     */
    static StoredBuffersResponse of(FileSpan span, FileRegion region, InputChannelId receiverId) {
        if (span.length() != region.count() || span.length() > Integer.MAX_VALUE - Frame.HEADER_LENGTH - HEADER_LENGTH) {
            region.release();
            throw new IllegalArgumentException("file span of " + span.length() + " bytes does not fit a frame, or its"
                    + " region has " + region.count() + " (receiver " + receiverId + ")");
        }
        return new StoredBuffersResponse(region, receiverId, span.firstSequenceNumber(), span.buffersInBacklog(),
                span.buffers(), (int) span.length(), span.position());
    }

    /** The length of the frame of a run of {@code storedBytes} stored bytes. */
    static long frameLength(long storedBytes) {
        return Frame.HEADER_LENGTH + HEADER_LENGTH + storedBytes;
    }

    /** The largest frame a receiver whose buffers hold {@code maxBufferSize} bytes accepts for this message. */
    static long maxFrameLength(int maxBufferSize) {
        return frameLength((long) MAX_BUFFERS * (FileSpan.STORED_HEADER_BYTES + maxBufferSize));
    }

    /** Sending side: the stored bytes to write after the header. */
    FileRegion region() {
        return region;
    }

    public InputChannelId receiverId() {
        return receiverId;
    }

    public int firstSequenceNumber() {
        return firstSequenceNumber;
    }

    /** Data buffers at the sender behind the run's last buffer. */
    public int backlog() {
        return backlog;
    }

    public int bufferCount() {
        return bufferCount;
    }

    public int storedBytes() {
        return storedBytes;
    }

    /** Where the run's first stored header is in the data file (each buffer's checksum covers its offset there). */
    public long filePosition() {
        return filePosition;
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
        out.writeInt(firstSequenceNumber);
        out.writeInt(backlog);
        out.writeInt(bufferCount);
        out.writeInt(storedBytes);
        out.writeLong(filePosition);
    }

    /** Reads the {@link #HEADER_LENGTH} header bytes; the result holds no region. */
    static StoredBuffersResponse readHeader(ByteBuf in) {
        InputChannelId receiverId = WireFields.readInputChannelId(in);
        int firstSequenceNumber = in.readInt();
        int backlog = in.readInt();
        int bufferCount = in.readInt();
        int storedBytes = in.readInt();
        long filePosition = in.readLong();
        return new StoredBuffersResponse(null, receiverId, firstSequenceNumber, backlog, bufferCount, storedBytes,
                filePosition);
    }

    /** @return the region's reference count; 1 without a region */
    @Override
    public int refCnt() {
        return region == null ? 1 : region.refCnt();
    }


    @Override
    public StoredBuffersResponse retain(int increment) {
        if (region != null) {
            region.retain(increment);
        }
        return this;
    }




    @Override
    public boolean release(int decrement) {
        return region != null && region.release(decrement);
    }

    @Override
    public String toString() {
        return "StoredBuffersResponse[" + bufferCount + " data buffers, " + storedBytes + " stored bytes for receiver "
                + receiverId + ", first sequence number " + firstSequenceNumber + ", backlog " + backlog
                + ", file position " + filePosition + "]";
    }
}
