package io.sluice.netty.partition;

import io.sluice.buffers.Buffer;

/**
 * One buffer taken from a subpartition, with what the reader needs to know about what follows it.
 *
 * <p>Ownership: the holder owns one reference of {@code buffer} and must recycle it exactly once (or pass it on,
 * for example to the network write, which then recycles it).
 *
 * @param buffer          the data or event buffer; never null
 * @param isDataAvailable whether another element can be read right now (a credited reader may poll again)
 * @param buffersInBacklog finished data buffers still queued behind this one (what the sender announces)
 * @param nextIsEvent     whether the next queued element is an event (sendable without credit)
 * @param isPriority      whether {@code buffer} is a priority event that overtook queued data
 * @param sequenceNumber  the position of this element in the subpartition's output, from 0
 */
public record BufferAndBacklog(Buffer buffer, boolean isDataAvailable, int buffersInBacklog, boolean nextIsEvent,
                               boolean isPriority, int sequenceNumber) {
}
