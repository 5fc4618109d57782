package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.netty.gate.InputChannelId;

/**
 * Reads the receiver ids of one connection's messages off the wire, handing out the instance it made last time when
 * the same id comes again: a connection carries the buffers of a few channels over and over, so the decoder need not
 * make an {@link InputChannelId} per buffer received.
 *
 * <p>A direct-mapped table: each id has one slot, picked from its bits (ids are random, see
 * {@link InputChannelId#random()}); an id whose slot holds another is read as a new instance and takes the slot.
 * {@value #SLOTS} slots: one connection carries the channels of all gates of this environment that read from one
 * producer, 100 or more in the many-channel shapes; 1 KB per connection with compressed references.
 *
 * <p>Owned by one decoder (the client's for buffer responses, the server's for credit); only called on its channel's
 * event loop.
 */
final class InputChannelIdReader {

    /** A power of two, so that a mask picks the slot. */
    static final int SLOTS = 256;

    private final InputChannelId[] recent = new InputChannelId[SLOTS];

    /** Reads a 16-byte id (upper, then lower half) at {@code in}'s reader index and advances past it. */
    InputChannelId read(ByteBuf in) {
        long upper = in.readLong();
        long lower = in.readLong();
        long mixed = upper ^ lower;
        int slot = (int) (mixed ^ (mixed >>> 32)) & (SLOTS - 1);
        InputChannelId id = recent[slot];
        if (id == null || id.upper() != upper || id.lower() != lower) {
            id = new InputChannelId(upper, lower);
            recent[slot] = id;
        }
        return id;
    }
}
