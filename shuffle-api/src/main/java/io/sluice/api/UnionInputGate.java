package io.sluice.api;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * Several gates read as one. Channels are numbered gate by gate: gate 0's channels first, then
 * gate 1's, and so on. The union is finished when every gate is. It owns its gates: {@link #close()}
 * closes them all.
 *
 * <p>Only the gates that may have something are polled, in turn: a gate whose poll came back empty is not polled
 * again until its {@link InputGate#wakeUpFuture()} completes, which queues it (once) on the union's queue of
 * gates to poll; a gate that handed something out goes to the tail of that queue, so a busy gate cannot starve the
 * others. So a buffer costs the same with 1,000 gates as with one: no pass over every gate (nor over their priority
 * futures) per buffer or per wait; the JMH benchmark {@code ManyChannelsBenchmark.records} ({@code -p shape=1x1000})
 * reads a union of 1,000 gates. A gate's priority events come first, whatever the turn: its
 * {@link InputGate#priorityEventWakeUpFuture()} queues it on a second queue that {@link #pollNext()} serves first.
 * {@link #getNext()} blocks on the union's own
 * {@link #wakeUpFuture()}, completed by the thread that queues the first gate (the thread that completed that
 * gate's wake-up future: the consumer wakes without the hop through the notification thread).
 *
 * <p>Threads: like any gate, read by one consumer thread ({@link #pollNext()}, {@link #getNext()},
 * {@link #setup()}, {@link #sendTaskEvent}); the gates' futures call {@link #gateReady} and {@link #priorityReady}
 * on whichever thread completes them (they only queue the gate under {@code lock} and complete the union's wake-up
 * future, never call a gate); {@link #close()}, {@link #isFinished()}, {@link #availableFuture()} and the wake-up
 * futures may be called from any thread. No gate is called while {@code lock} is held.
 */
public final class UnionInputGate implements InputGate {

    /** Done: nothing left to wait for. Shared; nobody completes it. */
    private static final CompletableFuture<?> DONE = CompletableFuture.completedFuture(null);

    private final List<InputGate> gates;
    /** Channel number in the union of each gate's channel 0. */
    private final int[] channelOffsets;
    private final int numberOfChannels;

    /** What the gates' futures run when they complete: queue gate i (data), or gate i (priority). Built once. */
    private final Runnable[] onGateReady;
    private final Runnable[] onPriorityReady;

    private final Object lock = new Object();
    /** Gates to poll, each at most once ({@code queued}), in turn; every gate to begin with. */
    @GuardedBy("lock")
    private final IntQueue ready;
    @GuardedBy("lock")
    private final boolean[] queued;
    /** Gates whose priority future completed, each at most once ({@code priorityQueued}); served first. */
    @GuardedBy("lock")
    private final IntQueue priority;
    @GuardedBy("lock")
    private final boolean[] priorityQueued;
    /** Completed when a gate is queued while nothing was; renewed by {@link #wakeUpFuture()} when found done. */
    @GuardedBy("lock")
    private CompletableFuture<Void> readyFuture = new CompletableFuture<>();
    /**
     * The union's priority future: completed once a gate is in {@link #priority} (after it is queued, so that a
     * consumer who sees it done finds the gate there), renewed when that queue empties. A gate's own priority future
     * completes before the union has queued the gate, so handing that out would let a poll in between return data.
     */
    @GuardedBy("lock")
    private CompletableFuture<Void> priorityFuture = new CompletableFuture<>();

    /** Gates the consumer saw finished (polled empty, then {@code isFinished()}). Consumer thread. */
    private final boolean[] gateFinished;
    /** Written by the consumer thread only; volatile for {@link #wakeUpFuture()} from other threads. */
    private volatile int finishedGates;
    /** Whether the gates' priority futures are armed yet (at the first poll or priority future). */
    private volatile boolean priorityArmed;

    /**
     * @param gates the gates to read, at least one; the union owns them from now on
     * @throws IllegalArgumentException when {@code gates} is empty
     */
    public UnionInputGate(List<InputGate> gates) {
        this.gates = List.copyOf(gates);
        int count = this.gates.size();
        if (count == 0) {
            throw new IllegalArgumentException("UnionInputGate needs at least one gate");
        }
        channelOffsets = new int[count];
        int channels = 0;
        for (int i = 0; i < count; i++) {
            channelOffsets[i] = channels;
            channels += this.gates.get(i).numberOfInputChannels();
        }
        numberOfChannels = channels;
        onGateReady = new Runnable[count];
        onPriorityReady = new Runnable[count];
        for (int i = 0; i < count; i++) {
            int index = i;
            onGateReady[i] = () -> gateReady(index);
            onPriorityReady[i] = () -> priorityReady(index);
        }
        ready = new IntQueue(count);
        queued = new boolean[count];
        priority = new IntQueue(count);
        priorityQueued = new boolean[count];
        gateFinished = new boolean[count];
        for (int i = 0; i < count; i++) {
            ready.add(i);
            queued[i] = true;
        }
    }

    @Override
    public int numberOfInputChannels() {
        return numberOfChannels;
    }

    /**
     * Sets up every gate. When one fails, every gate is closed (so nothing stays reserved) and the
     * failure is thrown (an unchecked one as a {@link ShuffleException} carrying it).
     */
    @Override
    public void setup() throws IOException {
        for (int i = 0; i < gates.size(); i++) {
            try {
                gates.get(i).setup();
            } catch (IOException e) {
                closeAll(e);
                throw e;
            } catch (RuntimeException e) {
                ShuffleException failure = failureOf(i, "cannot be set up", e);
                closeAll(failure);
                throw failure;
            }
        }
    }

    /** The API's exception for an unchecked failure of gate {@code index} (a bug of that gate), carrying it. */
    private static ShuffleException failureOf(int index, String what, RuntimeException cause) {
        return new ShuffleException("gate " + index + " of the union " + what + ": " + cause, cause);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A gate with a priority event waiting is polled first, whatever the turn, so the union hands out priority
     * events ahead of data as each gate does. Otherwise the gates queued as possibly having something are polled in
     * turn; each one polled empty waits for its wake-up future before it is polled again.
     */
    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException {
        armPriority();
        Optional<BufferOrEvent> next = pollPriority();
        if (next.isPresent()) {
            return next;
        }
        // Each gate queued now at most once: a gate whose future is done but that has nothing is not spun on here.
        int tries;
        synchronized (lock) {
            tries = ready.size();
        }
        for (; tries > 0; tries--) {
            int index;
            synchronized (lock) {
                index = ready.poll();
                if (index < 0) {
                    break;
                }
                queued[index] = false;
            }
            InputGate gate = gates.get(index);
            try {
                next = gate.pollNext();
            } catch (IOException e) {
                // Keep a failed gate queued: every later read reports the failure too, none hangs.
                gateReady(index);
                throw e;
            } catch (RuntimeException e) {
                gateReady(index);
                throw failureOf(index, "failed", e);
            }
            if (next.isPresent()) {
                // It may have more: back to the tail, behind the gates that waited.
                gateReady(index);
                return offset(next, index);
            }
            if (gate.isFinished()) {
                if (!gateFinished[index]) {
                    gateFinished[index] = true;
                    finishedGates = finishedGates + 1; // the consumer thread is the only writer
                }
            } else {
                // Polled empty: its wake-up future (renewed by that poll) queues it again.
                gate.wakeUpFuture().thenRun(onGateReady[index]);
            }
        }
        return Optional.empty();
    }

    /** Arms each gate's priority future once; arming twice only queues a gate once. Any thread. */
    private void armPriority() {
        if (!priorityArmed) {
            priorityArmed = true;
            for (int i = 0; i < gates.size(); i++) {
                gates.get(i).priorityEventWakeUpFuture().thenRun(onPriorityReady[i]);
            }
        }
    }

    /** The next priority event of a gate that announced one, or empty. Consumer thread. */
    private Optional<BufferOrEvent> pollPriority() throws IOException {
        while (true) {
            int index;
            synchronized (lock) {
                index = priority.peek();
                if (index < 0) {
                    return Optional.empty();
                }
            }
            InputGate gate = gates.get(index);
            Optional<BufferOrEvent> next = Optional.empty();
            if (gate.priorityEventWakeUpFuture().isDone()) {
                try {
                    next = gate.pollNext();
                } catch (RuntimeException e) {
                    throw failureOf(index, "failed", e);
                }
            }
            CompletableFuture<?> pending = gate.priorityEventWakeUpFuture();
            if (!pending.isDone() || next.isEmpty()) {
                // Its priority events are taken (or it had none after all): off the queue, armed on the new future.
                // Not on a future that is done although the poll found nothing (a gate breaking its contract, or
                // finished): that would queue it again at once; the gate is still polled in turn.
                synchronized (lock) {
                    priority.poll();
                    priorityQueued[index] = false;
                    if (priority.size() == 0) {
                        // Renewed even if not done yet: the thread that queued a gate completes it after the lock.
                        priorityFuture = new CompletableFuture<>();
                    }
                }
                if (!pending.isDone() && !gate.isFinished()) {
                    pending.thenRun(onPriorityReady[index]);
                }
            }
            if (next.isPresent()) {
                return offset(next, index);
            }
        }
    }

    /**
     * {@code next} of gate {@code index}, renumbered into the union's channels; a recovered element queued through
     * the union is the engine's own again.
     */
    private Optional<BufferOrEvent> offset(Optional<BufferOrEvent> next, int index) {
        if (channelOffsets[index] == 0) {
            return next;
        }
        BufferOrEvent element = next.get();
        return Optional.of(element instanceof GateRecoveredElement recovered ? recovered.original()
                : new OffsetBufferOrEvent(element, channelOffsets[index]));
    }

    /** Queues gate {@code index} to be polled (once); wakes the consumer when it is the first. Any thread. */
    private void gateReady(int index) {
        enqueue(index, false);
    }

    /** Queues gate {@code index} as having a priority event (once); wakes the consumer. Any thread. */
    private void priorityReady(int index) {
        enqueue(index, true);
    }

    /**
     * Adds {@code index} to the priority queue or the queue of gates to poll, unless it is there; completes the
     * union's wake-up future when this made the union go from nothing queued (in either queue) to something. Any
     * thread.
     */
    private void enqueue(int index, boolean priorityEvent) {
        CompletableFuture<Void> toComplete = null;
        CompletableFuture<Void> toCompletePriority = null;
        synchronized (lock) {
            IntQueue queue = priorityEvent ? priority : ready;
            boolean[] inQueue = priorityEvent ? priorityQueued : queued;
            if (inQueue[index]) {
                return;
            }
            inQueue[index] = true;
            queue.add(index);
            if (ready.size() + priority.size() == 1) {
                toComplete = readyFuture;
            }
            if (priorityEvent) {
                toCompletePriority = priorityFuture;
            }
        }
        if (toComplete != null) {
            toComplete.complete(null);
        }
        if (toCompletePriority != null) {
            toCompletePriority.complete(null);
        }
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        while (true) {
            Optional<BufferOrEvent> next = pollNext();
            if (next.isPresent() || finishedGates == gates.size()) {
                return next;
            }
            try {
                wakeUpFuture().get();
            } catch (InterruptedException e) {
                // The contract keeps the interrupt status set along with the exception.
                Thread.currentThread().interrupt();
                throw e;
            } catch (ExecutionException e) {
                throw new ShuffleException("An input gate of the union failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Keeps the notification-thread guarantee: any of the unfinished gates' {@code availableFuture()}s.
     *
     * @return completes when a gate that has not finished has something, or finishes or fails
     */
    @Override
    public CompletableFuture<?> availableFuture() {
        return anyOfUnfinished(InputGate::availableFuture);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The union's own future: done while a gate is queued to be polled (a gate whose wake-up future completed, or
     * that handed something out and may have more) and once every gate was seen finished, else pending until the
     * thread that completes a gate's wake-up future queues it. A done future may still find nothing: the gate's
     * poll then re-arms it.
     *
     * @return completes when a gate that has not finished may have something, or finishes or fails
     */
    @Override
    public CompletableFuture<?> wakeUpFuture() {
        synchronized (lock) {
            // Every gate is queued, waiting on its armed future, or seen finished (then never armed again).
            if (ready.size() > 0 || priority.size() > 0 || finishedGates == gates.size()) {
                return DONE;
            }
            if (readyFuture.isDone()) {
                readyFuture = new CompletableFuture<>();
            }
            return readyFuture;
        }
    }

    /** A done future of an unfinished gate, else the only pending one, else any of the pending ones. */
    private CompletableFuture<?> anyOfUnfinished(Function<InputGate, CompletableFuture<?>> futureOf) {
        List<CompletableFuture<?>> pending = new ArrayList<>(gates.size());
        for (InputGate gate : gates) {
            if (!gate.isFinished()) {
                CompletableFuture<?> future = futureOf.apply(gate);
                if (future.isDone()) {
                    return future;
                }
                pending.add(future);
            }
        }
        if (pending.isEmpty()) {
            return DONE;
        }
        return pending.size() == 1 ? pending.get(0)
                : CompletableFuture.anyOf(pending.toArray(new CompletableFuture<?>[0]));
    }

    /** @return completes when a gate of the union has a priority event waiting, or closes */
    @Override
    public CompletableFuture<?> priorityEventAvailableFuture() {
        return anyGate(InputGate::priorityEventAvailableFuture);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The one gate's own future; for several, the union's, completed by the thread that completes a gate's
     * {@link InputGate#priorityEventWakeUpFuture()} once the union has queued that gate to be polled first.
     */
    @Override
    public CompletableFuture<?> priorityEventWakeUpFuture() {
        if (gates.size() == 1) {
            return gates.get(0).priorityEventWakeUpFuture();
        }
        armPriority();
        synchronized (lock) {
            return priorityFuture;
        }
    }

    /** The one gate's future, else a done one of a gate, else any of them. */
    private CompletableFuture<?> anyGate(Function<InputGate, CompletableFuture<?>> futureOf) {
        if (gates.size() == 1) {
            return futureOf.apply(gates.get(0));
        }
        CompletableFuture<?>[] futures = new CompletableFuture<?>[gates.size()];
        for (int i = 0; i < futures.length; i++) {
            futures[i] = futureOf.apply(gates.get(i));
            if (futures[i].isDone()) {
                return futures[i];
            }
        }
        return CompletableFuture.anyOf(futures);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Sums its gates' figures; the owner name lists theirs. The union's {@link #getNext()} waits on its gates'
     * futures, not in their {@code getNext()}, so its own waits are not in {@code waitingForDataNanos}.
     */
    @Override
    public GateMetrics metrics() {
        StringBuilder names = new StringBuilder("union of ");
        long bytesIn = 0;
        long buffersIn = 0;
        int queued = 0;
        int exclusiveUsed = 0;
        int exclusive = 0;
        int floatingUsed = 0;
        int floating = 0;
        long waiting = 0;
        for (int i = 0; i < gates.size(); i++) {
            GateMetrics gate = gates.get(i).metrics();
            names.append(i == 0 ? "" : ", ").append(gate.ownerName());
            bytesIn += gate.bytesIn();
            buffersIn += gate.buffersIn();
            queued += gate.queuedBuffers();
            exclusiveUsed += gate.exclusiveBuffersInUse();
            exclusive += gate.exclusiveBuffers();
            floatingUsed += gate.floatingBuffersInUse();
            floating += gate.floatingBuffers();
            waiting += gate.waitingForDataNanos();
        }
        return new GateMetrics(names.toString(), System.nanoTime(), numberOfChannels, bytesIn, buffersIn, queued,
                exclusiveUsed, exclusive, floatingUsed, floating, waiting);
    }

    @Override
    public boolean isFinished() {
        for (InputGate gate : gates) {
            if (!gate.isFinished()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sends the event to every gate, each reading its own view of it. When some gates fail, the
     * others still get the event; the first failure is thrown with the rest suppressed.
     */
    @Override
    public void sendTaskEvent(ByteBuffer event) throws IOException {
        EveryOne.apply(gateIndices(), IOException.class, null, i -> sendTaskEventTo(i, event.duplicate()));
    }

    /** The numbers of the union's gates, 0 to gates.size() - 1, for {@link EveryOne}. */
    private Iterable<Integer> gateIndices() {
        return () -> IntStream.range(0, gates.size()).iterator();
    }

    /** Sends {@code event} to gate {@code index}; an unchecked failure of the gate as the API's exception. */
    private void sendTaskEventTo(int index, ByteBuffer event) throws IOException {
        try {
            gates.get(index).sendTaskEvent(event);
        } catch (RuntimeException e) {
            throw failureOf(index, "cannot send a task event", e);
        }
    }

    /** Sends the event to the producer of the union's channel {@code channelIndex} only. */
    @Override
    public void sendTaskEvent(int channelIndex, ByteBuffer event) throws IOException {
        int gate = gateOf(channelIndex);
        try {
            gates.get(gate).sendTaskEvent(channelIndex - channelOffsets[gate], event);
        } catch (RuntimeException e) {
            throw failureOf(gate, "cannot send a task event", e);
        }
    }

    /** Resumes the union's channel {@code channelIndex} on the gate that owns it. */
    @Override
    public void resumeConsumption(int channelIndex) throws IOException {
        int gate = gateOf(channelIndex);
        try {
            gates.get(gate).resumeConsumption(channelIndex - channelOffsets[gate]);
        } catch (RuntimeException e) {
            throw failureOf(gate, "cannot resume consumption", e);
        }
    }

    /** Moves an announced event of the union's channel {@code channelIndex} on the gate that owns it. */
    @Override
    public boolean prioritizeAnnounced(int channelIndex, int sequenceNumber) {
        int gate = gateOf(channelIndex);
        return gates.get(gate).prioritizeAnnounced(channelIndex - channelOffsets[gate], sequenceNumber);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each gate of the union measures and announces its own buffer size, as Flink's gates do.
     */
    @Override
    public void triggerDebloating() {
        for (InputGate gate : gates) {
            gate.triggerDebloating();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The smallest size any gate of the union announced, or 0 when none announced one.
     */
    @Override
    public int debloatedBufferSize() {
        int smallest = 0;
        for (InputGate gate : gates) {
            int size = gate.debloatedBufferSize();
            if (size > 0 && (smallest == 0 || size < smallest)) {
                smallest = size;
            }
        }
        return smallest;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The union's channel number, then what the gate that owns it says of its own channel.
     */
    @Override
    public String describeChannel(int channelIndex) {
        if (channelIndex < 0 || channelIndex >= numberOfChannels) {
            return "channel " + channelIndex;
        }
        int gate = gateOf(channelIndex);
        return "channel " + channelIndex + " of the union: gate " + gate + "'s "
                + gates.get(gate).describeChannel(channelIndex - channelOffsets[gate]);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Starts persisting on every gate; a gate's sink hands its buffers on with the union's channel index. When a
     * gate cannot, persisting stops on every gate and its exception reaches the caller.
     */
    @Override
    public void startPersisting(Predicate<ByteBuffer> endsPersisting, InFlightDataSink sink) {
        try {
            for (int i = 0; i < gates.size(); i++) {
                int offset = channelOffsets[i];
                gates.get(i).startPersisting(endsPersisting, offset == 0 ? sink
                        : (index, buffer) -> sink.accept(index + offset, new OffsetBufferOrEvent(buffer, offset)));
            }
        } catch (RuntimeException | Error e) {
            stopPersisting();
            throw e;
        }
    }

    /** Stops persisting on every gate. */
    @Override
    public void stopPersisting() {
        for (InputGate gate : gates) {
            gate.stopPersisting();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Queued on the gate that owns the channel, renumbered into its channels; the union hands out the element
     * itself again.
     */
    @Override
    public void addRecovered(BufferOrEvent recovered) {
        int gate = gateOf(recovered.channelIndex());
        int offset = channelOffsets[gate];
        gates.get(gate).addRecovered(offset == 0 ? recovered : new GateRecoveredElement(recovered, offset));
    }

    /** The index of the gate that owns the union's channel {@code channelIndex}. */
    private int gateOf(int channelIndex) {
        if (channelIndex < 0 || channelIndex >= numberOfChannels) {
            throw new IndexOutOfBoundsException("the union has " + numberOfChannels + " channels; channel "
                    + channelIndex + " does not exist");
        }
        int gate = channelOffsets.length - 1;
        while (channelOffsets[gate] > channelIndex) {
            gate--;
        }
        return gate;
    }

    /** Closes every gate; a gate whose close throws does not keep the others open. Idempotent. */
    @Override
    public void close() {
        try {
            closeAll(null);
        } finally {
            CompletableFuture<Void> toComplete;
            synchronized (lock) {
                toComplete = priorityFuture;
            }
            toComplete.complete(null); // as a closed gate's
        }
    }

    /** Closes every gate; the failures of close are added to {@code primary}, or thrown when it is null. */
    private void closeAll(Throwable primary) {
        EveryOne.apply(gates, RuntimeException.class, primary, InputGate::close);
    }
}
