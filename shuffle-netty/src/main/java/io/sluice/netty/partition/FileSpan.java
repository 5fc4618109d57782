package io.sluice.netty.partition;

import java.nio.file.Path;

/**
 * One data buffer of a subpartition that stays in its file: the sender ships {@code length} bytes from
 * {@code position} of {@code file} straight to the socket (sendfile) instead of reading them into memory. The other
 * fields say what {@link BufferAndBacklog} says of a buffer. Immutable.
 *
 * @param file             the partition's data file
 * @param position         where the buffer's bytes start
 * @param length           the buffer's size, at most one segment
 * @param isDataAvailable  whether another element can be read right now
 * @param buffersInBacklog data buffers still to come
 * @param nextIsEvent      whether the next element is an event
 * @param sequenceNumber   the position of this element in the subpartition's output
 */
public record FileSpan(Path file, long position, int length, boolean isDataAvailable, int buffersInBacklog,
                       boolean nextIsEvent, int sequenceNumber) {
}
