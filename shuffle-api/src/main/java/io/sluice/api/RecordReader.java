package io.sluice.api;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * <p>Threads: {@link #next()} is called by one consumer thread at a time (a second thread calling it
 * while a call is under way gets an {@link IllegalStateException}). {@link #close()} may be called
 * from any thread: it closes the gate first, which wakes a {@code next()} blocked on it, then
 * recycles the held buffers once no {@code next()} is running.
 *
 * <p>How close() and next() exclude each other, without a lock per record: one atomic word,
 * {@code access}, is {@code IDLE}, {@code BUSY} (a {@code next()} or the recycling of a close is
 * under way; whoever set it owns every field below) or {@code CLOSED} (terminal, everything
 * recycled). {@code next()} enters with a compare-and-swap {@code IDLE -> BUSY} and leaves with a
 * release store of {@code IDLE}: one atomic instruction per record, where a monitor took two.
 * {@code close()} sets {@code closing}, closes the gate (which ends a {@code next()} waiting in
 * it) and then takes the word from {@code IDLE} to {@code BUSY} itself, recycles, and stores
 * {@code CLOSED}; while a {@code next()} holds it, close() spins and then parks briefly, which is
 * bounded: a running {@code next()} ends within one record or, waiting, as soon as the gate is
 * closed, and a {@code next()} that starts once {@code closing} is set does the recycling itself
 * and throws, so a consumer calling {@code next()} in a loop cannot keep close() out.
 */
public final class RecordReader implements AutoCloseable {

    /** {@code access}: no call is under way. */
    private static final int IDLE = 0;
    /** {@code access}: a {@code next()} or a close's recycling is under way; its thread owns the fields. */
    private static final int BUSY = 1;
    /** {@code access}: closed and recycled; terminal. */
    private static final int CLOSED = 2;
    /** How often close() spins on a running next() before it starts to park. */
    private static final int CLOSE_SPINS = 1_000;
    /** How long close() parks at a time while a next() is still running. */
    private static final long CLOSE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private static final VarHandle ACCESS;

    static {
        try {
            ACCESS = MethodHandles.lookup().findVarHandle(RecordReader.class, "access", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final InputGate gate;
    private final ChannelDeserializer[] deserializers;
    /** Owned by whoever holds {@code access} BUSY (as is every non-final field below but the two volatiles). */
    private final ReusableRecordOrEvent holder = new ReusableRecordOrEvent();

    /** IDLE, BUSY or CLOSED (class Javadoc); accessed through {@link #ACCESS}. */
    @SuppressWarnings("unused") // accessed through ACCESS
    private volatile int access = IDLE;
    /** Set by {@link #close()} before it closes the gate, so a woken next() knows why the gate ended. */
    private volatile boolean closing;
    /** Serializes close() calls, so a second close returns only once the first has recycled everything. */
    private final Object closeLock = new Object();

    /** The gate has finished; {@link #next()} returns null. Owned by the BUSY holder. */
    private boolean finished;
    /** The buffer being read, or null; owned by this reader. Owned by the BUSY holder. */
    private BufferOrEvent current;
    /** The unread bytes of {@link #current}; its position is the next byte to read. Owned by the BUSY holder. */
    private ByteBuffer currentData;
    /** A duplicate of {@link #currentData}, positioned on each record handed out without a copy. BUSY holder. */
    private ByteBuffer currentView;
    /** The deserializer of {@link #current}'s channel (looked up once per buffer). Owned by the BUSY holder. */
    private ChannelDeserializer currentDeserializer;
    /** The channel of {@link #current} (read once per buffer, not per record). Owned by the BUSY holder. */
    private int currentChannel;
    /** A buffer or event the last returned record or event points into; recycled by the next call. BUSY holder. */
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
     * @throws IllegalStateException after {@link #close()} (also when close() runs at the same time), or when
     *     another thread is inside next()
     */
    public RecordOrEvent next() throws IOException, InterruptedException {
        // One compare-and-swap per record instead of a monitor's two (class Javadoc); the release store in the
        // finally block is a plain store on x86.
        if (!ACCESS.compareAndSet(this, IDLE, BUSY)) {
            throw notIdle();
        }
        if (closing) {
            throw closeFromNext();
        }
        try {
            return read();
        } finally {
            ACCESS.setRelease(this, IDLE);
        }
    }

    /**
     * close() has begun while this next() holds {@code access}: recycles here and ends CLOSED, so a consumer
     * calling next() in a loop cannot keep close() out.
     *
     * @return the exception for next() to throw
     */
    private IllegalStateException closeFromNext() {
        recycleAllAndClose();
        return new IllegalStateException("RecordReader.next() called after close()");
    }

    /** The body of {@link #next()}; the caller holds {@code access} BUSY. */
    private RecordOrEvent read() throws IOException, InterruptedException {
        if (finished) {
            return null;
        }
        recycleHandedOut();
        while (true) {
            if (current != null) {
                ByteBuffer record = currentDeserializer.nextRecord(currentData, currentView);
                if (record != null) {
                    int channel = currentChannel;
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
                finished = true;
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

    /**
     * Closes the gate and recycles every buffer the reader holds; idempotent; any thread. When a
     * {@link #next()} is running on another thread, waits until it has returned (it does so
     * promptly: the closed gate ends a wait).
     */
    @Override
    public void close() {
        closing = true;
        try {
            gate.close(); // first, without holding access: wakes a next() blocked in gate.getNext()
        } finally {
            synchronized (closeLock) {
                takeOverAndRecycle();
            }
        }
    }

    /** Waits until no next() runs, then recycles everything and leaves the reader CLOSED. */
    private void takeOverAndRecycle() {
        boolean interrupted = false;
        int spins = 0;
        while (true) {
            int seen = (int) ACCESS.getAcquire(this);
            if (seen == CLOSED) {
                break; // an earlier close, or a next() that saw closing, recycled everything
            }
            if (seen == IDLE && ACCESS.compareAndSet(this, IDLE, BUSY)) {
                recycleAllAndClose();
                break;
            }
            if (spins < CLOSE_SPINS) {
                spins++;
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, CLOSE_PARK_NANOS);
                // An interrupt would make every park return at once; keep it for the caller and keep waiting.
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Recycles the held buffers and leaves the reader CLOSED; the caller holds {@code access} BUSY. */
    private void recycleAllAndClose() {
        try {
            recycleHandedOut();
        } finally {
            try {
                if (current != null) {
                    releaseCurrent(false);
                }
            } finally {
                ACCESS.setRelease(this, CLOSED);
            }
        }
    }

    private IllegalStateException notIdle() {
        if ((int) ACCESS.getAcquire(this) == CLOSED || closing) {
            return new IllegalStateException("RecordReader.next() called after close()");
        }
        return new IllegalStateException("RecordReader.next() called by " + Thread.currentThread().getName()
                + " while another call of next() was under way: one consumer thread at a time");
    }

    private void startReading(BufferOrEvent buffer) {
        int channel = buffer.channelIndex();
        if (channel < 0 || channel >= deserializers.length) {
            buffer.recycle();
            throw new IllegalStateException("Gate handed out a buffer of channel " + channel
                    + ", but it has " + deserializers.length + " channels");
        }
        current = buffer;
        currentChannel = channel;
        currentDeserializer = deserializers[channel];
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
    private void releaseCurrent(boolean stillReferenced) {
        BufferOrEvent toRelease = current;
        current = null;
        currentData = null;
        currentView = null;
        currentDeserializer = null;
        if (stillReferenced) {
            handedOut = toRelease;
        } else {
            toRelease.recycle();
        }
    }

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
