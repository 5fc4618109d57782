package io.sluice.flink;

import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.AvailabilityProvider;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EndOfData;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.api.EventAnnouncement;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ProducerFailedException;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.SluiceChannel;
import org.apache.flink.util.CloseableIterator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Flink's {@link IndexedInputGate} over a Sluice {@link io.sluice.api.InputGate}.
 *
 * <p>Channel {@code i} of this gate is Flink's channel {@code i} (Flink's order of consumed shuffle descriptors); it
 * maps to a channel of the Sluice gate through {@link #toSluiceChannel} (the identity unless the channels consume
 * different subpartition indexes, in which case one Sluice gate per index is read as a Sluice union). Data buffers
 * reach Flink without a copy ({@link SluiceBuffers}); events are decoded with Flink's event serializer. Flink's
 * {@link EndOfPartitionEvent} on a channel marks it finished; once every channel has one, the gate is finished.
 *
 * <p>A channel that reads a range of subpartitions (Flink's adaptive batch scheduler) gets Flink's
 * {@link EndOfData} and {@link EndOfPartitionEvent} once per subpartition, as Flink's producer writes them into each:
 * the gate keeps all but the last of each to itself, so Flink sees one of each per channel, after the range's last
 * subpartition (its record deserializer and end-of-input accounting are per channel).
 *
 * <p>Life cycle, in the order Flink's StreamTask drives it: {@link #setup()} (checks only), then recovery: Flink's
 * channel-state thread hands the input data an unaligned checkpoint persisted to the gate's channels
 * ({@link RecoveredInput}), the task polls it, and once {@link #finishReadRecoveredState()} said all is handed over
 * and the task took it all, the task's poll completes {@link #getStateConsumedFuture()}; then
 * {@link #requestPartitions()} sets up the Sluice gate (reserving its buffers and requesting every partition), then
 * reading, then {@link #close()}. The state-consumed future completes on the task thread, as Flink's own gate
 * completes it, because Flink 2.2's StreamTask suspends its restore loop from whichever thread completes it and fails
 * the task ("Mailbox loop interrupted before recovery was finished") if that is another thread.
 *
 * <p>Unaligned checkpoints: {@link #checkpointStarted} has the Sluice gate persist, per channel, the data before
 * that channel's barrier that the task had not taken yet (queued, or arriving later), into Flink's channel-state
 * writer; {@link #checkpointStopped} ends it. An aligned barrier that may time out, received over the network, is
 * announced to Flink ({@link EventAnnouncement}, a priority event ahead of the data before the barrier), and
 * {@link #convertToPriorityEvent} moves that barrier ahead of the data on Flink's alignment timeout.
 *
 * <p>Threads: the read, resume, acknowledge and checkpoint methods are called by the task's mailbox thread only;
 * {@link #close()}, {@link #isFinished()} and the futures may be used from any thread.
 */
public final class SluiceInputGate extends IndexedInputGate {

    /** Life cycle of the gate. */
    private enum State {
        /** Created; Sluice's gate not set up yet. */
        CREATED,
        /** Partitions requested: reading. */
        REQUESTED,
        /** Closed. */
        CLOSED
    }

    private final String ownerName;
    private final int gateIndex;
    private final ResultPartitionType partitionType;
    private final io.sluice.api.InputGate sluice;
    private final int[] toSluiceChannel;
    private final int[] fromSluiceChannel;
    /** The first and last subpartition each channel reads. */
    private final int[] firstSubpartition;
    private final int[] lastSubpartition;
    private final InputChannel[] standIns;
    private final List<InputChannelInfo> channelInfos;
    private final Counter numBuffersIn;
    private final ClassLoader eventClassLoader = getClass().getClassLoader();

    private final CompletableFuture<Void> partitionsRequested = new CompletableFuture<>();
    /** Completed by {@link #finishReadRecoveredState()}, on Flink's channel-state thread. */
    private final CompletableFuture<Void> recoveredStateRead = new CompletableFuture<>();
    /** Completed by the task thread's first poll after {@link #recoveredStateRead}. */
    private final CompletableFuture<Void> stateConsumed = new CompletableFuture<>();
    private final CompletableFuture<Void> bufferFilteringComplete = new CompletableFuture<>();
    /** Never completed: what a closed gate answers for priority events. */
    private final CompletableFuture<Void> noMorePriorityEvents = new CompletableFuture<>();

    private volatile State state = State.CREATED; // written by the task thread or close()
    private final BitSet endedChannels; // task thread
    private final BitSet endOfDataChannels; // task thread
    /** Flink's ends of data and of partition each channel received, one per subpartition it reads. Task thread. */
    private final int[] endsOfData;
    private final int[] endsOfPartition;
    private volatile int numberOfEndedChannels; // written by the task thread
    private boolean drainOnEndOfData = true; // task thread
    private boolean checkpointingDuringRecovery; // task thread
    private ChannelStateWriter channelStateWriter = ChannelStateWriter.NO_OP; // set before reading, task thread
    /** The checkpoint whose in-flight data the Sluice gate persists, or -1. Task thread. */
    private long persistingCheckpoint = -1;

    /**
     * A gate whose channel {@code i} reads the subpartitions {@code firstSubpartition[i]..lastSubpartition[i]}.
     *
     * @param standIns  builds the channel objects Flink sees, given where they pass recovered input and Flink's
     *                  checkpoint calls (see {@link FlinkChannelStandIns})
     * @param recovered the gate's recovered input
     */
    SluiceInputGate(String ownerName, int gateIndex, ResultPartitionType partitionType,
                    io.sluice.api.InputGate sluice, int[] toSluiceChannel, int[] firstSubpartition,
                    int[] lastSubpartition, Function<SluiceChannel.Target, InputChannel[]> standIns,
                    RecoveredInput recovered, Counter numBuffersIn) {
        this.ownerName = ownerName;
        this.gateIndex = gateIndex;
        this.partitionType = partitionType;
        this.sluice = sluice;
        this.toSluiceChannel = toSluiceChannel;
        this.firstSubpartition = firstSubpartition;
        this.lastSubpartition = lastSubpartition;
        this.standIns = standIns.apply(new ChannelHooks(recovered));
        this.numBuffersIn = numBuffersIn;
        int channels = toSluiceChannel.length;
        this.fromSluiceChannel = new int[channels];
        List<InputChannelInfo> infos = new ArrayList<>(channels);
        for (int i = 0; i < channels; i++) {
            fromSluiceChannel[toSluiceChannel[i]] = i;
            infos.add(new InputChannelInfo(gateIndex, i));
        }
        this.channelInfos = List.copyOf(infos);
        this.endedChannels = new BitSet(channels);
        this.endOfDataChannels = new BitSet(channels);
        this.endsOfData = new int[channels];
        this.endsOfPartition = new int[channels];
    }

    @Override
    public int getGateIndex() {
        return gateIndex;
    }

    @Override
    public int getNumberOfInputChannels() {
        return toSluiceChannel.length;
    }

    @Override
    public List<InputChannelInfo> getChannelInfos() {
        return channelInfos;
    }

    @Override
    public List<InputChannelInfo> getUnfinishedChannels() {
        List<InputChannelInfo> unfinished = new ArrayList<>();
        for (int i = 0; i < toSluiceChannel.length; i++) {
            if (!endedChannels.get(i)) {
                unfinished.add(channelInfos.get(i));
            }
        }
        return unfinished;
    }

    /**
     * The channel object Flink sees: it answers identity questions (channel info, consumed subpartitions) and passes
     * recovered input and Flink's checkpoint calls to this gate; see {@link FlinkChannelStandIns}.
     */
    @Override
    public InputChannel getChannel(int channelIndex) {
        return standIns[channelIndex];
    }

    @Override
    public ResultPartitionType getConsumedPartitionType() {
        return partitionType;
    }

    @Override
    public boolean isFinished() {
        return numberOfEndedChannels == toSluiceChannel.length;
    }

    @Override
    public EndOfDataStatus hasReceivedEndOfData() {
        if (endOfDataChannels.cardinality() < toSluiceChannel.length) {
            return EndOfDataStatus.NOT_END_OF_DATA;
        }
        return drainOnEndOfData ? EndOfDataStatus.DRAINED : EndOfDataStatus.STOPPED;
    }

    @Override
    public void setup() {
        if (state != State.CREATED) {
            throw new IllegalStateException("gate " + gateIndex + " of " + ownerName + " is already " + state);
        }
    }

    @Override
    public void requestPartitions() throws IOException {
        if (state != State.CREATED) {
            return;
        }
        sluice.setup();
        state = State.REQUESTED;
        partitionsRequested.complete(null);
    }

    @Override
    public CompletableFuture<Void> getStateConsumedFuture() {
        return stateConsumed;
    }

    // Declared by Flink 2.3's InputGate, not by Flink 2.2's: compiled against either (docs/flink.md, "Flink versions").
    @SuppressWarnings("MissingOverride")
    public CompletableFuture<Void> getBufferFilteringCompleteFuture() {
        return bufferFilteringComplete;
    }

    /**
     * Flink's channel-state reader handed over every recovered buffer (through the channels, on its thread); the task
     * completes the state-consumed future once it took them all.
     */
    @Override
    public void finishReadRecoveredState() {
        bufferFilteringComplete.complete(null);
        recoveredStateRead.complete(null);
    }

    /**
     * Before the partitions are requested: hands out recovered input, and once the recovered state is read and every
     * recovered element taken, completes {@link #stateConsumed} on the polling (task) thread.
     */
    private Optional<BufferOrEvent> beforePartitionsRequested() throws IOException {
        boolean allHandedOver = recoveredStateRead.isDone(); // read before polling: nothing is added after it
        while (true) {
            Optional<io.sluice.api.BufferOrEvent> recovered = sluice.pollNext();
            if (recovered.isEmpty()) {
                break;
            }
            BufferOrEvent flink = toFlink(recovered.get());
            if (flink != null) {
                return Optional.of(flink);
            }
        }
        if (allHandedOver) {
            stateConsumed.complete(null);
        }
        return Optional.empty();
    }

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        if (state == State.CREATED) {
            return beforePartitionsRequested();
        }
        if (state != State.REQUESTED || isFinished()) {
            return Optional.empty();
        }
        while (true) {
            Optional<io.sluice.api.BufferOrEvent> next;
            try {
                next = sluice.getNext();
            } catch (io.sluice.api.ProducerFailedException e) {
                throw asFlinkProducerFailure(e);
            }
            if (next.isEmpty()) {
                return Optional.empty();
            }
            BufferOrEvent flink = toFlink(next.get());
            if (flink != null) {
                return Optional.of(flink);
            }
        }
    }

    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException {
        if (state == State.CREATED) {
            return beforePartitionsRequested();
        }
        if (state != State.REQUESTED || isFinished()) {
            return Optional.empty();
        }
        while (true) {
            Optional<io.sluice.api.BufferOrEvent> next;
            try {
                next = sluice.pollNext();
            } catch (io.sluice.api.ProducerFailedException e) {
                throw asFlinkProducerFailure(e);
            }
            if (next.isEmpty()) {
                return Optional.empty();
            }
            BufferOrEvent flink = toFlink(next.get());
            if (flink != null) {
                return Optional.of(flink);
            }
        }
    }

    /**
     * A producer that failed (or released its partition before this gate read it to its end) reaches the task as
     * Flink's {@link ProducerFailedException}, a {@code CancelTaskException}, as from Flink's own channels: the
     * consumer's task is then cancelled, not failed, so the job fails with the producer's own cause rather than with
     * whichever consumer reported first. Sluice's exception, with the producer's message, is its cause.
     */
    private static ProducerFailedException asFlinkProducerFailure(io.sluice.api.ProducerFailedException e) {
        return new ProducerFailedException(e);
    }

    /**
     * Sluice's {@link io.sluice.api.InputGate#wakeUpFuture()}, completed directly by the thread that makes the gate
     * available (a Sluice event loop, a producer's thread in this TaskManager), not the detached
     * {@code availableFuture()} that takes a hop through Sluice's notification thread: Flink's own gates complete
     * this future on Netty threads too, and every continuation Flink hangs on it only enqueues a mail or completes
     * another availability future (the StreamTask's resume of its suspended default action, Flink's union and
     * multiple-input availability helpers), which is thread-safe and cheap. Before the partitions are requested it
     * is the future {@link #finishReadRecoveredState()} completes (so that the task polls once, completing the
     * state-consumed future on its own thread), then the one {@link #requestPartitions()} completes; a closed or
     * finished gate returns a done one.
     */
    @Override
    public CompletableFuture<?> getAvailableFuture() {
        State current = state;
        if (current == State.CLOSED || isFinished()) {
            return AvailabilityProvider.AVAILABLE;
        }
        if (current == State.CREATED) {
            if (stateConsumed.isDone()) {
                return partitionsRequested;
            }
            CompletableFuture<?> recovered = sluice.wakeUpFuture();
            return recovered.isDone() || recoveredStateRead.isDone()
                    ? AvailabilityProvider.AVAILABLE
                    : CompletableFuture.anyOf(recoveredStateRead, recovered);
        }
        return sluice.wakeUpFuture();
    }

    /**
     * Sluice's priority future: while it is done, the next {@link #pollNext()} returns a priority event (Flink's
     * checkpointed gate polls priority events from a mail when this completes and checks exactly that). It is the
     * wake-up variant ({@link io.sluice.api.InputGate#priorityEventWakeUpFuture()}), completed directly by the
     * thread that delivers the event, because Flink's only continuation on it enqueues that mail. A closed
     * gate has none to poll, so it hands out a future that never completes: a done one would make Flink's gate
     * re-enqueue its priority mail without end.
     */
    @Override
    public CompletableFuture<?> getPriorityEventAvailableFuture() {
        return state == State.CLOSED ? noMorePriorityEvents : sluice.priorityEventWakeUpFuture();
    }

    @Override
    public void sendTaskEvent(TaskEvent event) throws IOException {
        sluice.sendTaskEvent(ConsumerSignal.taskEvent(EventSerializer.toSerializedEvent(event)));
    }

    @Override
    public void resumeGateConsumption() throws IOException {
        for (int i = 0; i < toSluiceChannel.length; i++) {
            sluice.resumeConsumption(toSluiceChannel[i]);
        }
    }

    /** After an aligned barrier (or another blocking event): the channel's producer sends again. */
    @Override
    public void resumeConsumption(InputChannelInfo channelInfo) throws IOException {
        sluice.resumeConsumption(toSluiceChannel[channelInfo.getInputChannelIdx()]);
    }

    /**
     * After {@link EndOfData} on a channel: tells that channel's producer its records were all processed, for every
     * subpartition the channel reads.
     */
    @Override
    public void acknowledgeAllRecordsProcessed(InputChannelInfo channelInfo) throws IOException {
        int channel = channelInfo.getInputChannelIdx();
        for (int subpartition = firstSubpartition[channel]; subpartition <= lastSubpartition[channel];
                subpartition++) {
            sluice.sendTaskEvent(toSluiceChannel[channel], ConsumerSignal.allRecordsProcessed(subpartition));
        }
    }

    /** Flink's channel-state writer: a real one when unaligned checkpoints are enabled. Before reading. */
    @Override
    public void setChannelStateWriter(ChannelStateWriter channelStateWriter) {
        this.channelStateWriter = channelStateWriter;
    }

    /**
     * An unaligned checkpoint started (its first barrier reached the task): from now until each channel's barrier
     * of this checkpoint (or a later one), the data the task had not taken yet goes to Flink's channel-state writer,
     * each buffer as Flink's buffer over the same bytes (the writer recycles it once written). Task thread.
     */
    @Override
    public void checkpointStarted(CheckpointBarrier barrier) throws CheckpointException {
        long checkpointId = barrier.getId();
        if (checkpointId == persistingCheckpoint) {
            return; // Flink's wrapper of the gate calls it once per channel
        }
        ChannelStateWriter writer = channelStateWriter;
        persistingCheckpoint = checkpointId;
        try {
            sluice.startPersisting(event -> isBarrierOfOrAfter(event, checkpointId),
                    (channel, buffer) -> writer.addInputData(checkpointId,
                            channelInfos.get(fromSluiceChannel[channel]), ChannelStateWriter.SEQUENCE_NUMBER_UNKNOWN,
                            CloseableIterator.ofElement(SluiceBuffers.wrap(buffer), Buffer::recycleBuffer)));
        } catch (RuntimeException e) {
            persistingCheckpoint = -1;
            throw new CheckpointException("gate " + gateIndex + " of " + ownerName + " could not start persisting "
                    + "its data in flight for checkpoint " + checkpointId,
                    CheckpointFailureReason.CHECKPOINT_DECLINED, e);
        }
    }

    /** Whether a Sluice event is Flink's barrier of {@code checkpointId} or a later checkpoint. Task thread. */
    private boolean isBarrierOfOrAfter(ByteBuffer payload, long checkpointId) {
        try {
            AbstractEvent event = EventSerializer.fromSerializedEvent(payload.duplicate(), eventClassLoader);
            return event instanceof CheckpointBarrier barrier && barrier.getId() >= checkpointId;
        } catch (IOException e) {
            throw new IllegalStateException("gate " + gateIndex + " of " + ownerName + ": an event of "
                    + payload.remaining() + " bytes is not one of Flink's", e);
        }
    }

    /** The checkpoint ended on this task (all barriers taken, or aborted): persisting for it, if any, stops. */
    @Override
    public void checkpointStopped(long cancelledCheckpointId) {
        if (persistingCheckpoint != -1 && cancelledCheckpointId >= persistingCheckpoint) {
            persistingCheckpoint = -1;
            sluice.stopPersisting();
        }
    }

    /**
     * An aligned barrier this gate announced ({@link EventAnnouncement}) is to overtake the data before it: Flink's
     * barrier handler asks this when the alignment times out, for each channel whose barrier it has seen announced
     * but not received. Sluice's gate moves the barrier ahead of that data ({@code prioritizeAnnounced}); it then
     * reaches Flink as a priority event that is still the aligned barrier, as Flink's own remote channel moves it.
     * Nothing happens for a channel that holds no such barrier: an in-process channel (it announces nothing; the
     * producer's own timeout moves the barrier in its subpartition) or a barrier the task took in its place already.
     * Task thread.
     */
    @Override
    public void convertToPriorityEvent(int channelIndex, int sequenceNumber) {
        sluice.prioritizeAnnounced(toSluiceChannel[channelIndex], sequenceNumber);
    }

    /**
     * Buffer debloating, called by Flink's StreamTask on every gate each {@code buffer-debloat.period} when
     * {@code taskmanager.network.memory.buffer-debloat.enabled} is true: the Sluice gate measures its throughput and
     * announces the buffer size its producers cut (one size for the gate, as Flink's own gate). Cheap, never blocks;
     * a no-op when debloating is off, before the partitions are requested and after close. Task thread.
     */
    @Override
    public void triggerDebloating() {
        sluice.triggerDebloating();
    }

    /**
     * The buffer size this gate announced last, in bytes (the starting size from its setup on); 0 while it announced
     * none (its producers cut whole segments). Any thread.
     */
    int debloatedBufferSize() {
        return sluice.debloatedBufferSize();
    }

    // Declared by Flink 2.3's InputGate, not by Flink 2.2's: compiled against either (docs/flink.md, "Flink versions").
    @SuppressWarnings("MissingOverride")
    public void setCheckpointingDuringRecoveryEnabled(boolean enabled) {
        if (enabled) {
            throw UnsupportedFeatures.refusal(UnsupportedFeatures.checkpointingDuringRecovery());
        }
        checkpointingDuringRecovery = false;
    }

    // Declared by Flink 2.3's InputGate, not by Flink 2.2's: compiled against either (docs/flink.md, "Flink versions").
    @SuppressWarnings("MissingOverride")
    public boolean isCheckpointingDuringRecoveryEnabled() {
        return checkpointingDuringRecovery;
    }

    @Override
    public void close() {
        state = State.CLOSED;
        sluice.close();
    }

    /**
     * Turns what Sluice handed out into Flink's form; takes ownership of {@code next}. Task thread.
     *
     * @return null for an end of data or of partition of a subpartition before the last one its channel reads
     */
    private BufferOrEvent toFlink(io.sluice.api.BufferOrEvent next) throws IOException {
        int channel = fromSluiceChannel[next.channelIndex()];
        InputChannelInfo info = channelInfos.get(channel);
        if (!next.isEvent()) {
            numBuffersIn.inc();
            return new BufferOrEvent(SluiceBuffers.wrap(next), info, moreAvailable(), false);
        }
        AbstractEvent event;
        int size;
        boolean priority = next.isPriority(); // read while the element is held
        int announced = next.isAnnouncement() ? next.announcedSequenceNumber() : -1;
        try {
            ByteBuffer payload = next.data();
            size = payload.remaining();
            event = EventSerializer.fromSerializedEvent(payload, eventClassLoader);
        } finally {
            next.recycle();
        }
        if (announced >= 0) {
            // Sluice announced an aligned barrier received behind data: Flink's barrier handler learns of it as from
            // its own remote channel, and may ask for it to be moved (convertToPriorityEvent with this number).
            event = new EventAnnouncement(event, announced);
        } else if (event instanceof EndOfPartitionEvent) {
            if (++endsOfPartition[channel] < subpartitionsRead(channel)) {
                return null;
            }
            endedChannels.set(channel);
            numberOfEndedChannels = endedChannels.cardinality();
        } else if (event instanceof EndOfData endOfData) {
            drainOnEndOfData &= endOfData.getStopMode() == StopMode.DRAIN;
            if (++endsOfData[channel] < subpartitionsRead(channel)) {
                return null;
            }
            endOfDataChannels.set(channel);
        }
        return new BufferOrEvent(event, priority, info, !isFinished() && moreAvailable(), size,
                priority && sluice.priorityEventWakeUpFuture().isDone());
    }

    private int subpartitionsRead(int channel) {
        return lastSubpartition[channel] - firstSubpartition[channel] + 1;
    }

    private boolean moreAvailable() {
        return sluice.wakeUpFuture().isDone();
    }

    /**
     * What the gate's channel objects pass on: recovered input to {@link RecoveredInput}, and Flink's checkpoint
     * calls to the gate (Flink's task wraps the gate in its {@code InputGateWithMetrics}, which calls those on the
     * channels, once per channel). Immutable.
     */
    private final class ChannelHooks implements SluiceChannel.Target {

        private final RecoveredInput recovered;

        ChannelHooks(RecoveredInput recovered) {
            this.recovered = recovered;
        }

        @Override
        public Buffer requestBuffer() throws InterruptedException {
            return recovered.requestBuffer();
        }

        @Override
        public void onRecovered(int channelIndex, Buffer buffer) {
            recovered.onRecovered(channelIndex, buffer);
        }

        @Override
        public void checkpointStarted(CheckpointBarrier barrier) throws CheckpointException {
            SluiceInputGate.this.checkpointStarted(barrier);
        }

        @Override
        public void checkpointStopped(long checkpointId) {
            SluiceInputGate.this.checkpointStopped(checkpointId);
        }

        @Override
        public void convertToPriorityEvent(int channelIndex, int sequenceNumber) {
            SluiceInputGate.this.convertToPriorityEvent(channelIndex, sequenceNumber);
        }
    }

    @Override
    public String toString() {
        return "SluiceInputGate[" + gateIndex + " of " + ownerName + ", " + toSluiceChannel.length + " channels, "
                + state + "]";
    }
}
