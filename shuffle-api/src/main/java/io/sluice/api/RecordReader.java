package io.sluice.api;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads records (framed as {@link RecordFraming} defines) and events from an {@link InputGate}.
 *
 * <p>Keeps one {@link ChannelDeserializer} per channel, since the buffers of different channels
 * interleave. A record lying whole in one buffer is handed out as a view into that buffer (no
 * copy); a record spanning buffers is reassembled in the channel's reusable heap buffer.
 *
 * <p>Buffer ownership: the reader owns every buffer it takes from the gate and recycles each
 * exactly once: as soon as all its bytes are consumed, or, when the last record returned is a
 * view into it (or it is an event), at the next call of {@link #next()}; {@link #close()}
 * recycles whatever it still holds.
 *
 * <p>Threads: {@link #next()} is called by one consumer thread at a time. {@link #close()} may be
 * called from any thread: it closes the gate first, which wakes a {@code next()} blocked on it,
 * then recycles the held buffers.
 */
public final class RecordReader implements AutoCloseable {

    /** Life cycle of the reader. */
    private enum State {
        /** Hands out records. */
        READING,
        /** The gate has finished; {@link #next()} returns null. */
        FINISHED,
        /** Closed; {@link #next()} throws. */
        CLOSED
    }

    private final InputGate gate;
    private final Object lock = new Object();
    private final ChannelDeserializer[] deserializers;
    @GuardedBy("lock")
    private final ReusableRecordOrEvent holder = new ReusableRecordOrEvent();

    /** Set by {@link #close()} before it closes the gate, so a woken next() knows why the gate ended. */
    private volatile boolean closing;
    @GuardedBy("lock")
    private State state = State.READING;
    /** The buffer being read, or null; owned by this reader. */
    @GuardedBy("lock")
    private BufferOrEvent current;
    /** The unread bytes of {@link #current}; its position is the next byte to read. */
    @GuardedBy("lock")
    private ByteBuffer currentData;
    /** A duplicate of {@link #currentData}, positioned on each record handed out without a copy. */
    @GuardedBy("lock")
    private ByteBuffer currentView;
    /** A buffer or event the last returned record or event points into; recycled by the next call. */
    @GuardedBy("lock")
    private BufferOrEvent handedOut;

    /**
     * @param gate the gate to read; the reader owns it from now on and closes it in {@link #close()}
     */
    public RecordReader(InputGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
        int channels = gate.numberOfInputChannels();
        deserializers = new ChannelDeserializer[channels];
        for (int i = 0; i < channels; i++) {
            deserializers[i] = new ChannelDeserializer(i);
        }
    }

    /**
     * Blocks until the next record or event is there. The returned object and its data are valid
     * until the next call; the reader reuses them.
     *
     * @return the next record or event, or null once every channel of the gate has ended
     * @throws IOException when the gate fails, or a channel's stream ends inside a record or is corrupt
     * @throws InterruptedException when the thread is interrupted while waiting
     * @throws IllegalStateException after {@link #close()}
     */
    public RecordOrEvent next() throws IOException, InterruptedException {
        // One uncontended lock per record: it lets close() come from another thread safely.
        synchronized (lock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("RecordReader.next() called after close()");
            }
            if (state == State.FINISHED) {
                return null;
            }
            recycleHandedOut();
            while (true) {
                if (current != null) {
                    int channel = current.channelIndex();
                    ByteBuffer record = deserializers[channel].nextRecord(currentData, currentView);
                    if (record != null) {
                        if (!currentData.hasRemaining()) {
                            releaseCurrent(record == currentView);
                        }
                        return holder.set(channel, false, record);
                    }
                    releaseCurrent(false);
                }
                Optional<BufferOrEvent> next = gate.getNext();
                if (next.isEmpty()) {
                    if (closing) {
                        // Not the end of the data: reporting null would tell the caller it read everything.
                        throw new ShuffleException("RecordReader was closed while next() was waiting");
                    }
                    state = State.FINISHED;
                    failOnPartialRecord();
                    return null;
                }
                BufferOrEvent bufferOrEvent = next.get();
                if (bufferOrEvent.isEvent()) {
                    handedOut = bufferOrEvent;
                    return holder.set(bufferOrEvent.channelIndex(), true, bufferOrEvent.data());
                }
                startReading(bufferOrEvent);
            }
        }
    }

    /** Closes the gate and recycles every buffer the reader holds; idempotent; any thread. */
    @Override
    public void close() {
        closing = true;
        try {
            gate.close(); // first, without the lock: wakes a next() blocked in gate.getNext()
        } finally {
            synchronized (lock) {
                if (state != State.CLOSED) {
                    state = State.CLOSED;
                    recycleHandedOut();
                    if (current != null) {
                        releaseCurrent(false);
                    }
                }
            }
        }
    }

    @GuardedBy("lock")
    private void startReading(BufferOrEvent buffer) {
        int channel = buffer.channelIndex();
        if (channel < 0 || channel >= deserializers.length) {
            buffer.recycle();
            throw new IllegalStateException("Gate handed out a buffer of channel " + channel
                    + ", but it has " + deserializers.length + " channels");
        }
        current = buffer;
        currentData = buffer.data().order(ByteOrder.BIG_ENDIAN);
        // One duplicate per buffer (not per record) serves every record handed out without a copy.
        currentView = currentData.duplicate();
    }

    /**
     * Lets go of the buffer being read, all of whose bytes are consumed.
     *
     * @param stillReferenced true when the record just returned is a view into it: it is then
     *     recycled at the next call instead of now
     */
    @GuardedBy("lock")
    private void releaseCurrent(boolean stillReferenced) {
        if (stillReferenced) {
            handedOut = current;
        } else {
            current.recycle();
        }
        current = null;
        currentData = null;
        currentView = null;
    }

    @GuardedBy("lock")
    private void recycleHandedOut() {
        if (handedOut != null) {
            BufferOrEvent toRecycle = handedOut;
            handedOut = null;
            toRecycle.recycle();
        }
    }

    private void failOnPartialRecord() throws ShuffleException {
        for (ChannelDeserializer deserializer : deserializers) {
            if (deserializer.hasPartialRecord()) {
                throw new ShuffleException("Input gate finished, but " + deserializer.describePartialRecord());
            }
        }
    }
}
