package io.sluice.buffers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Test double: keeps every buffer it is offered (the test recycles them) and counts destroy notifications.
 * Stays registered while fewer than {@code wanted} buffers arrived. Any thread.
 */
final class RecordingListener implements BufferListener {

    private final int wanted;

    private final List<Buffer> buffers = new ArrayList<>();

    private final CountDownLatch destroyedLatch = new CountDownLatch(1);

    private int destroyedCalls;

    RecordingListener(int wanted) {
        this.wanted = wanted;
    }

    @Override
    public synchronized Reply notifyBufferAvailable(Buffer buffer) {
        buffers.add(buffer);
        return buffers.size() < wanted ? Reply.TAKEN_WANTS_MORE : Reply.TAKEN;
    }

    @Override
    public synchronized void notifyBufferDestroyed() {
        destroyedCalls++;
        destroyedLatch.countDown();
    }

    synchronized List<Buffer> buffers() {
        return new ArrayList<>(buffers);
    }

    synchronized int destroyedCalls() {
        return destroyedCalls;
    }

    CountDownLatch destroyedLatch() {
        return destroyedLatch;
    }

    /** Recycles every buffer received so far. */
    void recycleAll() {
        for (Buffer buffer : buffers()) {
            buffer.recycleBuffer();
        }
    }
}
