package io.sluice.netty.gate;

import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A channel for tests that hands its gate the buffers and events it was given, and fails the way a test tells it
 * to: the unchecked failures a real channel or its source could raise (a bug, a corrupt source, an engine's
 * callback that throws), so that a test can check what the gate makes of them.
 *
 * <p>Test thread and the gate's consumer thread; every method holds the channel's monitor.
 */
final class ScriptedInputChannel extends InputChannel {

    private final ArrayDeque<Buffer> queued = new ArrayDeque<>(); // guarded by this
    private final ArrayDeque<Buffer> queuedPriority = new ArrayDeque<>(); // guarded by this
    private Runnable afterNextTake; // guarded by this
    private RuntimeException readFailure; // guarded by this
    private RuntimeException setupFailure; // guarded by this
    private RuntimeException requestFailure; // guarded by this
    private RuntimeException taskEventFailure; // guarded by this
    private RuntimeException resumeFailure; // guarded by this
    private RuntimeException releaseFailure; // guarded by this
    private boolean released; // guarded by this

    ScriptedInputChannel(SingleInputGate gate, int channelIndex, ResultPartitionId partitionId, int subpartition) {
        super(gate, channelIndex, partitionId, subpartition);
    }

    /** Queues a buffer or event (the channel owns it until the gate takes it) and tells the gate. */
    void add(Buffer buffer) {
        synchronized (this) {
            queued.add(buffer);
        }
        notifyChannelNonEmpty();
    }

    /**
     * Queues a priority event, handed out before the buffers and events queued with {@link #add}, and tells the gate
     * that there is something to read; announcing it is left to the test ({@link #announcePriorityEvent()}).
     */
    void addPriorityEvent(Buffer event) {
        synchronized (this) {
            queuedPriority.add(event);
        }
        notifyChannelNonEmpty();
    }

    /** Announces one priority event to the gate, as a channel's announcing thread does. */
    void announcePriorityEvent() {
        notifyPriorityEvent();
    }

    /**
     * Runs {@code hook} once, on the consumer's thread, right after its next read took something and before the
     * gate sees what it took: where another thread's announcement may land.
     */
    synchronized void afterNextTake(Runnable hook) {
        afterNextTake = hook;
    }

    /** The next read throws {@code failure}; the gate is told there is something to read. */
    void failNextRead(RuntimeException failure) {
        synchronized (this) {
            readFailure = failure;
        }
        notifyChannelNonEmpty();
    }

    synchronized void failSetupWith(RuntimeException failure) {
        setupFailure = failure;
    }

    synchronized void failRequestWith(RuntimeException failure) {
        requestFailure = failure;
    }

    synchronized void failTaskEventsWith(RuntimeException failure) {
        taskEventFailure = failure;
    }

    synchronized void failResumeWith(RuntimeException failure) {
        resumeFailure = failure;
    }

    synchronized void failReleaseWith(RuntimeException failure) {
        releaseFailure = failure;
    }

    @Override
    synchronized void setup() {
        if (setupFailure != null) {
            throw setupFailure;
        }
    }

    @Override
    synchronized void requestSubpartition() {
        if (requestFailure != null) {
            throw requestFailure;
        }
    }

    @Override
    BufferAndAvailability getNextBuffer() throws IOException {
        BufferAndAvailability next;
        Runnable hook;
        synchronized (this) {
            checkError();
            if (readFailure != null) {
                RuntimeException failure = readFailure;
                readFailure = null;
                throw failure;
            }
            Buffer priorityEvent = queuedPriority.poll();
            Buffer taken = priorityEvent != null ? priorityEvent : queued.poll();
            if (taken == null) {
                return null;
            }
            next = new BufferAndAvailability(taken, !queued.isEmpty() || !queuedPriority.isEmpty(), 0,
                    priorityEvent != null);
            hook = afterNextTake;
            afterNextTake = null;
        }
        if (hook != null) {
            hook.run(); // outside the channel's monitor: a hook may call the gate
        }
        return next;
    }

    @Override
    synchronized void sendTaskEvent(ByteBuffer event) {
        if (taskEventFailure != null) {
            throw taskEventFailure;
        }
    }

    @Override
    synchronized void resumeConsumption() {
        if (resumeFailure != null) {
            throw resumeFailure;
        }
    }

    @Override
    synchronized void releaseAllResources() {
        if (released) {
            return;
        }
        released = true;
        while (!queued.isEmpty()) {
            queued.poll().recycleBuffer();
        }
        while (!queuedPriority.isEmpty()) {
            queuedPriority.poll().recycleBuffer();
        }
        if (releaseFailure != null) {
            throw releaseFailure;
        }
    }

    @Override
    synchronized boolean isReleased() {
        return released;
    }
}
