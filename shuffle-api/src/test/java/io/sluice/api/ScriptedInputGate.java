package io.sluice.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A hand-written gate for tests: hands out the buffers and events it was given, in order, ends
 * when {@link #finish()} was called and the queue is empty, and records what was asked of it.
 * Any thread (every method holds the gate's monitor, except while getNext waits).
 */
final class ScriptedInputGate implements InputGate {

    private final int channels;
    private final ArrayDeque<TestBuffer> queue = new ArrayDeque<>(); // guarded by this
    private final List<TestBuffer> handedOut = new ArrayList<>(); // guarded by this
    private final List<byte[]> taskEvents = new ArrayList<>(); // guarded by this
    private final List<Integer> taskEventChannels = new ArrayList<>(); // guarded by this
    private final List<Integer> resumedChannels = new ArrayList<>(); // guarded by this
    private CompletableFuture<Void> available = new CompletableFuture<>(); // guarded by this
    /** Priority events at the head of {@link #queue}; the priority future is done while there are some. */
    private int priorityEvents; // guarded by this
    private CompletableFuture<Void> priorityAvailable = new CompletableFuture<>(); // guarded by this
    private int priorityFutureCalls; // guarded by this
    private boolean finished; // guarded by this
    private IOException failure; // guarded by this
    private IOException setupFailure; // guarded by this
    private RuntimeException closeFailure; // guarded by this
    /** Thrown by setup, reads, task events and resumes: a gate's bug. */
    private RuntimeException uncheckedFailure; // guarded by this
    private int pollCalls; // guarded by this
    private int waits; // guarded by this
    private int setupCalls; // guarded by this
    private int closeCalls; // guarded by this
    private int debloatTriggers; // guarded by this
    /** What debloatedBufferSize() answers. */
    private int debloatedBufferSize; // guarded by this
    private boolean wakesOnlyThroughWakeUpFuture; // guarded by this
    /** Handed out by availableFuture() in the mode above: never completed. */
    private final CompletableFuture<Void> neverAvailable = new CompletableFuture<>();

    ScriptedInputGate(int channels) {
        this.channels = channels;
    }

    /** Queues buffers and events; wakes a waiting consumer. */
    synchronized ScriptedInputGate add(TestBuffer... buffers) {
        for (TestBuffer buffer : buffers) {
            queue.add(buffer);
        }
        wake();
        return this;
    }

    /**
     * Queues a priority event ahead of everything queued but earlier priority events, and completes the priority
     * future; wakes a waiting consumer.
     */
    synchronized ScriptedInputGate addPriority(TestBuffer event) {
        ArrayDeque<TestBuffer> rest = new ArrayDeque<>();
        for (int i = 0; i < priorityEvents; i++) {
            rest.add(queue.poll());
        }
        rest.add(event);
        rest.addAll(queue);
        queue.clear();
        queue.addAll(rest);
        priorityEvents++;
        priorityAvailable.complete(null);
        wake();
        return this;
    }

    /** @return how often priorityEventWakeUpFuture() or priorityEventAvailableFuture() was called */
    synchronized int priorityFutureCalls() {
        return priorityFutureCalls;
    }

    /** Queues the buffers of {@code channel}, one per array. */
    synchronized ScriptedInputGate addBuffers(int channel, List<byte[]> buffers) {
        for (byte[] bytes : buffers) {
            queue.add(TestBuffer.buffer(channel, bytes));
        }
        wake();
        return this;
    }

    /**
     * From now on only {@link #wakeUpFuture()} completes when the gate wakes; a pending {@link #availableFuture()}
     * never does (a gate whose notification thread is stuck, or slow).
     */
    synchronized ScriptedInputGate wakeOnlyThroughWakeUpFuture() {
        wakesOnlyThroughWakeUpFuture = true;
        return this;
    }

    /** Ends the data: once the queue is empty the gate is finished. */
    synchronized ScriptedInputGate finish() {
        finished = true;
        wake();
        return this;
    }

    synchronized void fail(IOException cause) {
        failure = cause;
        wake();
    }

    synchronized void failSetupWith(IOException cause) {
        setupFailure = cause;
    }

    synchronized void failCloseWith(RuntimeException cause) {
        closeFailure = cause;
    }

    /** From now on setup, reads, task events and resumes throw {@code cause} (a gate's bug); wakes a consumer. */
    synchronized void failUncheckedWith(RuntimeException cause) {
        uncheckedFailure = cause;
        wake();
    }

    private void throwUncheckedFailure() {
        if (uncheckedFailure != null) {
            throw uncheckedFailure;
        }
    }

    synchronized List<TestBuffer> handedOut() {
        return new ArrayList<>(handedOut);
    }

    synchronized List<Integer> taskEventChannels() {
        return new ArrayList<>(taskEventChannels);
    }

    synchronized List<Integer> resumedChannels() {
        return new ArrayList<>(resumedChannels);
    }

    synchronized List<byte[]> taskEvents() {
        return new ArrayList<>(taskEvents);
    }

    synchronized int pollCalls() {
        return pollCalls;
    }

    /** @return how often availableFuture() or wakeUpFuture() returned a future that was not done yet */
    synchronized int waits() {
        return waits;
    }

    /** Blocks until a consumer has asked for a future that is not done yet, i.e. is about to wait. */
    synchronized void awaitWaiting() throws InterruptedException {
        while (waits == 0) {
            wait();
        }
    }

    synchronized int setupCalls() {
        return setupCalls;
    }

    synchronized int closeCalls() {
        return closeCalls;
    }

    @Override
    public int numberOfInputChannels() {
        return channels;
    }

    @Override
    public synchronized void setup() throws IOException {
        setupCalls++;
        throwUncheckedFailure();
        if (setupFailure != null) {
            throw setupFailure;
        }
    }

    @Override
    public synchronized Optional<BufferOrEvent> pollNext() throws IOException {
        pollCalls++;
        throwUncheckedFailure();
        if (failure != null) {
            throw failure;
        }
        TestBuffer next = queue.poll();
        if (next == null) {
            return Optional.empty();
        }
        if (priorityEvents > 0 && --priorityEvents == 0) {
            priorityAvailable = new CompletableFuture<>();
        }
        handedOut.add(next);
        return Optional.of(next);
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        while (true) {
            CompletableFuture<?> future;
            synchronized (this) {
                Optional<BufferOrEvent> next = pollNext();
                if (next.isPresent() || isFinished() || closeCalls > 0) {
                    return next;
                }
                future = availableFuture();
            }
            try {
                future.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IOException(e.getCause());
            }
        }
    }

    @Override
    public synchronized CompletableFuture<?> availableFuture() {
        CompletableFuture<?> wakeUp = wakeUpFuture();
        return wakeUp.isDone() || !wakesOnlyThroughWakeUpFuture ? wakeUp : neverAvailable;
    }

    @Override
    public synchronized CompletableFuture<?> wakeUpFuture() {
        if (!queue.isEmpty() || finished || failure != null || uncheckedFailure != null || closeCalls > 0) {
            return CompletableFuture.completedFuture(null);
        }
        waits++;
        notifyAll();
        return available;
    }

    @Override
    public synchronized CompletableFuture<?> priorityEventAvailableFuture() {
        priorityFutureCalls++;
        return priorityAvailable;
    }

    @Override
    public synchronized boolean isFinished() {
        return finished && queue.isEmpty();
    }

    @Override
    public synchronized void sendTaskEvent(ByteBuffer event) throws IOException {
        throwUncheckedFailure();
        if (failure != null) {
            throw failure;
        }
        byte[] copy = new byte[event.remaining()];
        event.get(copy);
        taskEvents.add(copy);
    }

    @Override
    public synchronized void sendTaskEvent(int channelIndex, ByteBuffer event) throws IOException {
        sendTaskEvent(event);
        taskEventChannels.add(channelIndex);
    }

    @Override
    public synchronized void resumeConsumption(int channelIndex) {
        throwUncheckedFailure();
        resumedChannels.add(channelIndex);
    }

    @Override
    public synchronized void triggerDebloating() {
        debloatTriggers++;
    }

    @Override
    public synchronized int debloatedBufferSize() {
        return debloatedBufferSize;
    }

    /** Sets what {@link #debloatedBufferSize()} answers. */
    synchronized ScriptedInputGate announcing(int bufferSize) {
        debloatedBufferSize = bufferSize;
        return this;
    }

    synchronized int debloatTriggers() {
        return debloatTriggers;
    }

    @Override
    public synchronized void close() {
        closeCalls++;
        priorityAvailable.complete(null);
        while (!queue.isEmpty()) {
            queue.poll().recycle();
        }
        wake();
        if (closeFailure != null) {
            throw closeFailure;
        }
    }

    private void wake() {
        CompletableFuture<Void> toComplete = available;
        available = new CompletableFuture<>();
        toComplete.complete(null);
    }
}
