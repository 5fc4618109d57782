package io.sluice.api;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

/**
 * Reassembles the records of ONE channel from its buffers, following {@link RecordFraming}.
 * Keeps the state of a record cut by a buffer boundary (a partly read length, or the record bytes
 * copied so far) until the channel's next buffer arrives, so the buffers of several channels may
 * interleave. A record lying whole in one buffer is returned as a view into that buffer without
 * a copy; a record spanning buffers is copied into a heap buffer owned by this deserializer, which
 * grows to the largest such record and is reused.
 *
 * <p>The heap buffer grows with the bytes that arrive (doubling, at most to the declared length), never to a
 * declared length ahead of its bytes: a length prefix corrupted on disk or on the wire then costs no more memory
 * than the bytes that really came, and ends as a {@link ShuffleException} (a record cut short, or a length no
 * reader can hold), never as an {@link OutOfMemoryError} out of {@link RecordReader#next()}.
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

    /**
     * Largest array the JVM reliably allocates, and so the largest record a reader can reassemble from several
     * buffers.
     */
    static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    /** The first heap buffer of a channel is at least this large, so that small records spanning buffers grow it once. */
    private static final int MIN_SPILL_BYTES = 4096;

    private final int channelIndex;
    /** The channel's gate, asked for a description of the channel when something goes wrong. */
    private final InputGate gate;
    /** Allocates the heap buffer; {@link ByteBuffer#allocate} but in tests. */
    private final IntFunction<ByteBuffer> allocator;
    private State state = State.LENGTH;
    private int lengthBytesRead;
    private int length;
    private int copied;
    /** Holds a record that spans buffers; null until the first such record. */
    private ByteBuffer spill;

    ChannelDeserializer(int channelIndex, InputGate gate) {
        this(channelIndex, gate, ByteBuffer::allocate);
    }

    /** @param allocator allocates the heap buffer that reassembles records spanning buffers */
    ChannelDeserializer(int channelIndex, InputGate gate, IntFunction<ByteBuffer> allocator) {
        this.channelIndex = channelIndex;
        this.gate = gate;
        this.allocator = allocator;
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
     * @throws ShuffleException when a length is negative or larger than a reader can hold (the stream is corrupt),
     *     or the heap has no room for the record's bytes
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
            return channel() + " ended inside a record: " + copied + " of its " + length + " bytes arrived";
        }
        return channel() + " ended inside a record length: " + lengthBytesRead + " of "
                + RecordFraming.LENGTH_BYTES + " bytes arrived";
    }

    /** Bytes of the heap buffer that reassembles records spanning buffers; 0 before the first such record. */
    int spillCapacity() {
        return spill == null ? 0 : spill.capacity();
    }

    private String channel() {
        return gate.describeChannel(channelIndex);
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
            throw new ShuffleException("Corrupt record stream on " + channel() + ": record length "
                    + length + " is negative (lengths are " + RecordFraming.LENGTH_BYTES
                    + "-byte big-endian ints from 0 to " + RecordFraming.MAX_RECORD_LENGTH + ")");
        }
        if (length > MAX_ARRAY_LENGTH) {
            // Only a record spanning buffers reaches this check, and one this long spans many: it would need a
            // heap array larger than the JVM makes.
            throw new ShuffleException("Corrupt record stream on " + channel() + ": record length " + length
                    + " exceeds " + MAX_ARRAY_LENGTH + " bytes, the largest record a RecordReader can reassemble "
                    + "(the JVM's largest array)");
        }
        return true;
    }

    private ByteBuffer copyBody(ByteBuffer source) throws ShuffleException {
        int take = Math.min(length - copied, source.remaining());
        if (take == 0) {
            return null; // the buffer ended right after the length: the body starts in the next one
        }
        ensureSpillCapacity(copied + take);
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

    /**
     * Makes the heap buffer hold {@code required} bytes of the current record (the {@link #copied} ones kept): at
     * least twice as large as before (so a record costs O(length) in copies and O(log length) allocations), never
     * larger than the record's declared length, and never more than twice the bytes that arrived (or
     * {@link #MIN_SPILL_BYTES}).
     */
    private void ensureSpillCapacity(int required) throws ShuffleException {
        if (spill != null && spill.capacity() >= required) {
            if (copied == 0) {
                spill.clear(); // a new record: the previous one set the limit
            }
            return;
        }
        long doubled = spill == null ? MIN_SPILL_BYTES : Math.max(MIN_SPILL_BYTES, 2L * spill.capacity());
        int capacity = (int) Math.min(length, Math.max(required, doubled));
        ByteBuffer grown;
        try {
            grown = allocator.apply(capacity);
        } catch (OutOfMemoryError e) {
            // One failed allocation of a buffer nobody else references: nothing is half-done, and the bytes that
            // asked for it came from a disk or a peer, so the API's exception reports it.
            throw new ShuffleException(channel() + " cannot reassemble a record of " + length + " bytes: no heap for "
                    + capacity + " bytes after " + copied + " of them arrived (" + e.getMessage() + ")", e);
        }
        if (copied > 0) {
            grown.put(0, spill, 0, copied);
        }
        spill = grown;
    }
}
