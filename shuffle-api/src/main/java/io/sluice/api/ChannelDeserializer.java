package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * Reassembles the records of ONE channel from its buffers, following {@link RecordFraming}.
 * Keeps the state of a record cut by a buffer boundary (a partly read length, or the record bytes
 * copied so far) until the channel's next buffer arrives, so the buffers of several channels may
 * interleave. A record lying whole in one buffer is returned as a view into that buffer without
 * a copy; a record spanning buffers is copied into a heap buffer owned by this deserializer, which
 * grows to the largest such record and is reused.
 *
 * <p>Not thread-safe: only called by the {@link RecordReader} that owns it, on the reader's consumer thread (see
 * RecordReader).
 */
final class ChannelDeserializer {

    /** What the next bytes of the channel's stream are. */
    private enum State {
        /** Bytes of a record's length ({@link #lengthBytesRead} of them read so far). */
        LENGTH,
        /** Bytes of a record whose length is known ({@link #copied} of them in the spill buffer). */
        BODY
    }

    /** Largest array the JVM reliably allocates. */
    private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    private final int channelIndex;
    private State state = State.LENGTH;
    private int lengthBytesRead;
    private int length;
    private int copied;
    /** Holds a record that spans buffers; null until the first such record. */
    private ByteBuffer spill;

    ChannelDeserializer(int channelIndex) {
        this.channelIndex = channelIndex;
    }

    /**
     * Reads from {@code source} until one record is complete or {@code source} is exhausted,
     * advancing its position past every byte it consumed.
     *
     * @param source the unread bytes of one of this channel's buffers, big-endian; the caller
     *     keeps ownership
     * @param view a duplicate of {@code source} that this method positions on a record lying whole
     *     in {@code source}
     * @return null when {@code source} ended before a record did; else the record between
     *     position and limit of either {@code view} (no copy) or the spill buffer (valid until the
     *     next call)
     * @throws ShuffleException when a length is negative (the stream is corrupt)
     */
    ByteBuffer nextRecord(ByteBuffer source, ByteBuffer view) throws ShuffleException {
        // The common case, a record whole in the buffer, is RecordReader.nextWholeRecord's: here it comes only as
        // the first record of a buffer, once per buffer.
        if (state == State.LENGTH) {
            if (!readLength(source)) {
                return null;
            }
            state = State.BODY;
            copied = 0;
        }
        if (copied == 0 && source.remaining() >= length) {
            // Whole in this buffer: the view is positioned on it and the source moves past it.
            state = State.LENGTH;
            int start = source.position();
            int end = start + length;
            view.limit(end);
            view.position(start);
            source.position(end);
            return view;
        }
        return copyBody(source);
    }

    /** @return true when the next byte of the channel's stream starts a record's length */
    boolean isBetweenRecords() {
        return state == State.LENGTH && lengthBytesRead == 0;
    }

    /** @return true when the channel's stream stopped inside a record */
    boolean hasPartialRecord() {
        return !isBetweenRecords();
    }

    /** @return where the stream stopped, for an error message */
    String describePartialRecord() {
        if (state == State.BODY) {
            return "channel " + channelIndex + " ended inside a record: " + copied + " of its " + length
                    + " bytes arrived";
        }
        return "channel " + channelIndex + " ended inside a record length: " + lengthBytesRead + " of "
                + RecordFraming.LENGTH_BYTES + " bytes arrived";
    }

    /** @return true when the length is complete */
    private boolean readLength(ByteBuffer source) throws ShuffleException {
        if (lengthBytesRead == 0 && source.remaining() >= RecordFraming.LENGTH_BYTES) {
            length = source.getInt(); // common case: the whole length is in this buffer
        } else {
            while (lengthBytesRead < RecordFraming.LENGTH_BYTES && source.hasRemaining()) {
                length = RecordFraming.appendLengthByte(lengthBytesRead == 0 ? 0 : length, source.get());
                lengthBytesRead++;
            }
            if (lengthBytesRead < RecordFraming.LENGTH_BYTES) {
                return false;
            }
            lengthBytesRead = 0;
        }
        if (length < 0) {
            throw new ShuffleException("Corrupt record stream on channel " + channelIndex + ": record length "
                    + length + " is negative (lengths are " + RecordFraming.LENGTH_BYTES
                    + "-byte big-endian ints from 0 to " + RecordFraming.MAX_RECORD_LENGTH + ")");
        }
        return true;
    }

    private ByteBuffer copyBody(ByteBuffer source) {
        int take = Math.min(length - copied, source.remaining());
        if (take == 0) {
            return null; // the buffer ended right after the length: the body starts in the next one
        }
        if (copied == 0) {
            ensureSpillCapacity(length);
        }
        spill.put(copied, source, source.position(), take);
        source.position(source.position() + take);
        copied += take;
        if (copied < length) {
            return null;
        }
        spill.limit(length);
        spill.position(0);
        state = State.LENGTH;
        copied = 0;
        return spill;
    }

    private void ensureSpillCapacity(int required) {
        if (spill == null || spill.capacity() < required) {
            // Double at least, so a channel of growing records reallocates O(log n) times.
            int doubled = spill == null ? 0 : (int) Math.min(2L * spill.capacity(), MAX_ARRAY_LENGTH);
            spill = ByteBuffer.allocate(Math.max(required, doubled));
        }
        spill.clear();
    }
}
