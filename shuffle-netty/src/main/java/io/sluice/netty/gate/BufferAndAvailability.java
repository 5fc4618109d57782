package io.sluice.netty.gate;

import io.sluice.buffers.Buffer;

/**
 * One buffer taken from an input channel.
 *
 * <p>Ownership: the gate owns one reference of {@code buffer}; it hands it to the engine (which recycles it) or
 * recycles it itself (end-of-partition events).
 *
 * @param buffer        data or event; never null
 * @param moreAvailable the channel can hand out another element right now
 * @param backlog       the sender's backlog announced with this buffer (0 for local channels' own view)
 * @param priority      {@code buffer} is a priority event that overtook the data queued before it
 * @param announcement  for an announcement (a priority element over an announced event's bytes, {@code priority}
 *                      true) its sequence number, else -1
 */
record BufferAndAvailability(Buffer buffer, boolean moreAvailable, int backlog, boolean priority, int announcement) {

    /** An element that is no announcement. */
    BufferAndAvailability(Buffer buffer, boolean moreAvailable, int backlog, boolean priority) {
        this(buffer, moreAvailable, backlog, priority, -1);
    }
}
