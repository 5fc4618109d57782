package io.sluice.api;

import java.nio.ByteBuffer;

/**
 * One record or event handed out by {@link RecordReader#next()}. The reader reuses the same
 * object: it and its {@link #data()} are valid until the next call of {@code next()}.
 * Used by the reader's consumer thread.
 */
public interface RecordOrEvent {

    /** @return the gate channel it arrived on */
    int channelIndex();

    /** @return true for an event, false for a record */
    boolean isEvent();

    /** @return the record's or event's bytes, from position to limit; valid until the next {@code next()} */
    ByteBuffer data();
}
