package io.sluice.netty.partition.sortmerge;

import java.util.NoSuchElementException;

/**
 * The file positions of the entries queued in a {@link SortMergeSubpartitionView}, one per entry and in the same
 * order, so that read-ahead taken back from the tail of the queue can be read again from where it was stored: a
 * growable ring of longs (no boxing, no allocation once grown).
 *
 * <p>Not thread-safe: guarded by the owning view's lock, like its queue.
 */
final class PositionQueue {

    private long[] ring = new long[16];
    private int head;
    private int size;

    int size() {
        return size;
    }

    void addLast(long position) {
        if (size == ring.length) {
            long[] grown = new long[ring.length * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = ring[(head + i) & (ring.length - 1)];
            }
            ring = grown;
            head = 0;
        }
        ring[(head + size) & (ring.length - 1)] = position;
        size++;
    }

    long removeFirst() {
        if (size == 0) {
            throw new NoSuchElementException("no queued position");
        }
        long position = ring[head];
        head = (head + 1) & (ring.length - 1);
        size--;
        return position;
    }

    long removeLast() {
        if (size == 0) {
            throw new NoSuchElementException("no queued position");
        }
        size--;
        return ring[(head + size) & (ring.length - 1)];
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
