package io.sluice.netty.partition;

/**
 * One data buffer of a subpartition that stays in its file: the sender ships {@code length} bytes from
 * {@code position} of {@code file} straight to the socket (sendfile) instead of reading them into memory. The other
 * fields say what {@link BufferAndBacklog} says of a buffer. Immutable.
 *
 * <p>Ownership: the span holds one reference of {@code file} (the reader's one open handle of the data file, shared
 * by all its spans); whoever takes the span releases that reference once the bytes are written or dropped.
 *
 * @param file             the reader's open handle of the partition's data file; one reference is the taker's
 * @param position         where the buffer's bytes start
 * @param length           the buffer's size, at most one segment
 * @param isDataAvailable  whether another element can be read right now
 * @param buffersInBacklog data buffers still to come
 * @param nextIsEvent      whether the next element is an event
 * @param sequenceNumber   the position of this element in the subpartition's output
 */
public record FileSpan(SharedFileChannel file, long position, int length, boolean isDataAvailable,
                       int buffersInBacklog, boolean nextIsEvent, int sequenceNumber) {
}
