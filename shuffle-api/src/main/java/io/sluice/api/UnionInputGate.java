package io.sluice.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * Several gates read as one. Channels are numbered gate by gate: gate 0's channels first, then
 * gate 1's, and so on. The gates are polled in turn, so a busy gate cannot starve the others;
 * {@link #getNext()} waits on the gates' {@link InputGate#wakeUpFuture()}s, never polling
 * in a loop: the consumer wakes directly from the thread that made a gate available, without the
 * hop through the notification thread that {@link InputGate#availableFuture()} takes (a blocking
 * wait is what wake-up futures are for). With one gate left unfinished it waits on that gate's
 * future alone. The union is finished when every gate is. It owns its gates: {@link #close()}
 * closes them all.
 *
 * <p>Threads: like any gate, read by one consumer thread ({@link #pollNext()},
 * {@link #getNext()}, {@link #setup()}, {@link #sendTaskEvent}); {@link #close()},
 * {@link #isFinished()}, {@link #availableFuture()} and the wake-up futures may be called from any
 * thread.
 */
public final class UnionInputGate implements InputGate {

    /** Done: nothing left to wait for. Shared; nobody completes it. */
    private static final CompletableFuture<?> DONE = CompletableFuture.completedFuture(null);

    private final List<InputGate> gates;
    /** Channel number in the union of each gate's channel 0. */
    private final int[] channelOffsets;
    private final int numberOfChannels;
    /** The gate polled first by the next {@link #pollNext()}; only the consumer thread touches it. */
    private int nextGate;
    /**
     * The pending wake-up futures {@link #getNext()} waits on, reused from wait to wait (emptied after each);
     * only the consumer thread touches it.
     */
    private final CompletableFuture<?>[] waitingOn;

    /**
     * @param gates the gates to read, at least one; the union owns them from now on
     * @throws IllegalArgumentException when {@code gates} is empty
     */
    public UnionInputGate(List<InputGate> gates) {
        this.gates = List.copyOf(gates);
        if (this.gates.isEmpty()) {
            throw new IllegalArgumentException("UnionInputGate needs at least one gate");
        }
        channelOffsets = new int[this.gates.size()];
        int channels = 0;
        for (int i = 0; i < channelOffsets.length; i++) {
            channelOffsets[i] = channels;
            channels += this.gates.get(i).numberOfInputChannels();
        }
        numberOfChannels = channels;
        waitingOn = new CompletableFuture<?>[this.gates.size()];
    }

    @Override
    public int numberOfInputChannels() {
        return numberOfChannels;
    }

    /**
     * Sets up every gate. When one fails, every gate is closed (so nothing stays reserved) and the
     * failure is thrown.
     */
    @Override
    public void setup() throws IOException {
        for (InputGate gate : gates) {
            try {
                gate.setup();
            } catch (IOException | RuntimeException e) {
                closeAll(e);
                throw e;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A gate with a priority event waiting is polled first, whatever the turn, so the union hands out priority
     * events ahead of data as each gate does.
     */
    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException {
        int count = gates.size();
        for (int index = 0; index < count; index++) {
            if (gates.get(index).priorityEventWakeUpFuture().isDone()) {
                Optional<BufferOrEvent> next = gates.get(index).pollNext();
                if (next.isPresent()) {
                    return offset(next, index);
                }
            }
        }
        for (int i = 0; i < count; i++) {
            int index = (nextGate + i) % count;
            Optional<BufferOrEvent> next = gates.get(index).pollNext();
            if (next.isPresent()) {
                nextGate = (index + 1) % count;
                return offset(next, index);
            }
        }
        return Optional.empty();
    }

    /** {@code next} of gate {@code index}, renumbered into the union's channels. */
    private Optional<BufferOrEvent> offset(Optional<BufferOrEvent> next, int index) {
        return channelOffsets[index] == 0 ? next
                : Optional.of(new OffsetBufferOrEvent(next.get(), channelOffsets[index]));
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        while (true) {
            Optional<BufferOrEvent> next = pollNext();
            if (next.isPresent() || isFinished()) {
                return next;
            }
            try {
                wakeUpOfUnfinishedGates().get();
            } catch (ExecutionException e) {
                throw new ShuffleException("An input gate of the union failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * What {@link #getNext()} waits on: a done wake-up future of an unfinished gate as soon as one is found (no wait
     * then), the only pending one when a single gate is unfinished, else any of the pending ones. Allocates only in
     * the last case (the {@code anyOf} future). Consumer thread.
     */
    private CompletableFuture<?> wakeUpOfUnfinishedGates() {
        int pending = 0;
        try {
            for (InputGate gate : gates) {
                if (!gate.isFinished()) {
                    CompletableFuture<?> wakeUp = gate.wakeUpFuture();
                    if (wakeUp.isDone()) {
                        return wakeUp;
                    }
                    waitingOn[pending++] = wakeUp;
                }
            }
            if (pending == 0) {
                return DONE;
            }
            if (pending == 1) {
                return waitingOn[0];
            }
            // anyOf copies the array, so the buffer can be emptied and reused.
            return CompletableFuture.anyOf(pending == waitingOn.length ? waitingOn : Arrays.copyOf(waitingOn, pending));
        } finally {
            Arrays.fill(waitingOn, 0, pending, null);
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
     * <p>Any of the unfinished gates' {@link InputGate#wakeUpFuture()}s, completed by the thread that completes it.
     *
     * @return completes when a gate that has not finished has something, or finishes or fails
     */
    @Override
    public CompletableFuture<?> wakeUpFuture() {
        return anyOfUnfinished(InputGate::wakeUpFuture);
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
     * <p>Any of the gates' {@link InputGate#priorityEventWakeUpFuture()}s.
     */
    @Override
    public CompletableFuture<?> priorityEventWakeUpFuture() {
        return anyGate(InputGate::priorityEventWakeUpFuture);
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
        IOException failure = null;
        for (InputGate gate : gates) {
            try {
                gate.sendTaskEvent(event.duplicate());
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Sends the event to the producer of the union's channel {@code channelIndex} only. */
    @Override
    public void sendTaskEvent(int channelIndex, ByteBuffer event) throws IOException {
        int gate = gateOf(channelIndex);
        gates.get(gate).sendTaskEvent(channelIndex - channelOffsets[gate], event);
    }

    /** Resumes the union's channel {@code channelIndex} on the gate that owns it. */
    @Override
    public void resumeConsumption(int channelIndex) throws IOException {
        int gate = gateOf(channelIndex);
        gates.get(gate).resumeConsumption(channelIndex - channelOffsets[gate]);
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
        closeAll(null);
    }

    /** Closes every gate; the failures of close are added to {@code primary}, or thrown when it is null. */
    private void closeAll(Throwable primary) {
        RuntimeException failure = null;
        for (InputGate gate : gates) {
            try {
                gate.close();
            } catch (RuntimeException e) {
                if (primary != null) {
                    primary.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
