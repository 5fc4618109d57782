package io.sluice.netty.partition;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The single reader's view of a {@link PipelinedSubpartition}.
 *
 * <p>{@link #getNextBuffer()} is called by the reader's thread; the rest from any thread.
 */
final class PipelinedSubpartitionView implements ResultSubpartitionView {

    private final PipelinedSubpartition parent;
    private final BufferAvailabilityListener listener;
    private final AtomicBoolean released = new AtomicBoolean();

    PipelinedSubpartitionView(PipelinedSubpartition parent, BufferAvailabilityListener listener) {
        this.parent = parent;
        this.listener = listener;
    }

    BufferAvailabilityListener listener() {
        return listener;
    }

    @Override
    public BufferAndBacklog getNextBuffer() {
        if (released.get()) {
            return null;
        }
        return parent.pollBuffer();
    }

    @Override
    public boolean isAvailable(int credits) {
        return !released.get() && parent.isAvailable(credits);
    }

    @Override
    public int getBacklog() {
        return parent.getBacklog();
    }

    @Override
    public void resumeConsumption() {
        if (!released.get()) {
            parent.resumeConsumption();
        }
    }

    @Override
    public void notifyNewBufferSize(int size) {
        if (!released.get()) {
            parent.bufferSize(size);
        }
    }

    @Override
    public void releaseAllResources() {
        if (released.compareAndSet(false, true)) {
            parent.onViewReleased();
        }
    }

    @Override
    public boolean isReleased() {
        return released.get() || parent.isReleased();
    }

    @Override
    public Throwable getFailureCause() {
        return parent.getFailureCause();
    }

    @Override
    public String toString() {
        return "view of " + parent;
    }
}
