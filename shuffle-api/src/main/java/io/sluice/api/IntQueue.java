package io.sluice.api;

/**
 * A first-in first-out queue of ints with a fixed capacity, without boxing: the gate indices a
 * {@link UnionInputGate} is to poll, each queued at most once, so the capacity is the number of gates.
 *
 * <p>Not thread-safe: its owner guards it.
 */
final class IntQueue {

    private final int[] elements;
    private int head;
    private int size;

    /** @param capacity the most elements it holds at once, at least one */
    IntQueue(int capacity) {
        elements = new int[Math.max(1, capacity)];
    }

    /**
     * Appends {@code value}.
     *
     * @throws IllegalStateException when the queue holds {@code capacity} elements already
     */
    void add(int value) {
        if (size == elements.length) {
            throw new IllegalStateException("queue of " + elements.length + " is full; cannot add " + value);
        }
        int tail = head + size;
        elements[tail >= elements.length ? tail - elements.length : tail] = value;
        size++;
    }

    /** @return the head, removed, or -1 when empty (the values queued are never negative) */
    int poll() {
        if (size == 0) {
            return -1;
        }
        int value = elements[head];
        head = head + 1 == elements.length ? 0 : head + 1;
        size--;
        return value;
    }

    /** @return the head, left in place, or -1 when empty */
    int peek() {
        return size == 0 ? -1 : elements[head];
    }

    int size() {
        return size;
    }
}
