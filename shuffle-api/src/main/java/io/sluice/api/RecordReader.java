package io.sluice.api;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads records (framed as {@link RecordFraming} defines) and events from an {@link InputGate}.
 *
 * <p>Keeps one {@link ChannelDeserializer} per channel, since the buffers of different channels
 * interleave. A record lying whole in one buffer is handed out as a view into that buffer (no
 * copy); a record spanning buffers is reassembled in the channel's reusable heap buffer.
 *
 * <p>Buffer ownership: the reader owns every buffer it takes from the gate and recycles each
 * exactly once: as soon as all its bytes are consumed, or, when the last record returned is a
 * view into it (or it is an event), at the next call of {@link #next()}. It holds at most two:
 * the buffer being read and the one the last record points into. {@link #close()} recycles them
 * at once when it runs on the consumer's thread; see there for a close from another thread.
 *
 * <p>Threads: {@link #next()} is called by one consumer thread at a time; the reader may pass from
 * one thread to another with a happens-before edge between them (a queue, a lock, a join). The
 * consumer's thread owns every non-volatile field. A second thread calling next() while the first
 * waits in the gate gets an {@link IllegalStateException}; two threads reading at once otherwise is
 * a programming error the reader does not pay per record to detect. {@link #close()} may be called
 * from any thread.
 *
 * <p>Why there is no atomic instruction per record: for close() on another thread to learn whether
 * a next() is under way before it recycled that call's buffers, each next() would need a store-load
 * fence, and a compare-and-swap per record is a large share of the consumer's time per 8-byte record
 * (the consumer's CPU line of the JMH benchmark {@code ManyChannelsBenchmark.records} shows that time).
 * Instead the held buffers never change hands: close() on another thread only
 * closes the gate (which recycles what is queued there and wakes a waiting next()) and sets
 * {@code closing}; the consumer's thread recycles what it holds at its next call, which then throws.
 * The only fence left is the one a thread pays when it calls next() for the first time
 * ({@link #consumer}, a Dekker pair with {@code closing}, so that a close() that saw no consumer
 * knows no buffer is held) and two volatile stores around each wait in the gate (per buffer, not
 * per record).
 */
public final class RecordReader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RecordReader.class);

    private final InputGate gate;
    private final ChannelDeserializer[] deserializers;
    /** Owned by the consumer's thread, as is every non-final, non-volatile field below. */
    private final ReusableRecordOrEvent holder = new ReusableRecordOrEvent();

    /** Set by {@link #close()} before it closes the gate, so the consumer knows why the gate ended. */
    private volatile boolean closing;
    /**
     * The thread that called {@link #next()} last, or null before the first call. Written (a volatile store, so a
     * full fence) only when a thread calls next() for the first time, before it touches any buffer and before it
     * reads {@code closing}; close() writes {@code closing} and then reads this: one of the two sees the other.
     */
    private volatile Thread consumer;
    /** The thread waiting in the gate inside next(), or null; how a second calling thread is caught. */
    private volatile Thread waiter;
    /** Serializes the recycling of a close with that of a consumer that saw {@code closing}; rare paths only. */
    private final Object recycleLock = new Object();

    /** Everything was recycled after a close; next() throws. */
    @GuardedBy("recycleLock")
    private boolean closed;
    /** The gate has finished; {@link #next()} returns null. Consumer's thread. */
    private boolean finished;
    /** The buffer being read, or null; owned by this reader. Consumer's thread. */
    private BufferOrEvent current;
    /**
     * The bytes of {@link #current}, read from {@link #readPosition} (its own position is set to that only around
     * calls of the deserializer). Consumer's thread.
     */
    private ByteBuffer currentData;
    /** The next byte of {@link #currentData} to read. Consumer's thread. */
    private int readPosition;
    /** Where {@link #currentData}'s bytes end (its limit). Consumer's thread. */
    private int readLimit;
    /** A duplicate of {@link #currentData}, positioned on each record handed out without a copy. Consumer's thread. */
    private ByteBuffer currentView;
    /** The deserializer of {@link #current}'s channel (looked up once per buffer). Consumer's thread. */
    private ChannelDeserializer currentDeserializer;
    /** The channel of {@link #current} (read once per buffer, not per record). Consumer's thread. */
    private int currentChannel;
    /** A buffer or event the last returned record or event points into; recycled by the next call. Consumer's thread. */
    private BufferOrEvent handedOut;

    /**
     * @param gate the gate to read; the reader owns it from now on and closes it in {@link #close()}
     */
    public RecordReader(InputGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
        int channels = gate.numberOfInputChannels();
        deserializers = new ChannelDeserializer[channels];
        for (int i = 0; i < channels; i++) {
            deserializers[i] = new ChannelDeserializer(i, gate);
        }
    }

    /**
     * Blocks until the next record or event is there. The returned object and its data are valid
     * until the next call; the reader reuses them. A close() on another thread does not end that
     * validity: the consumer's own next call does.
     *
     * @return the next record or event, or null once every channel of the gate has ended
     * @throws IOException when the gate fails, or a channel's stream ends inside a record or is corrupt,
     *     or (a {@link ShuffleException}) when close() ends a wait for data
     * @throws InterruptedException when the thread is interrupted while waiting
     * @throws IllegalStateException after {@link #close()}, or when another thread is waiting inside next()
     */
    public RecordOrEvent next() throws IOException, InterruptedException {
        // Two plain loads on x86 per record; the fence is paid only by a thread's first call (enter).
        Thread thread = Thread.currentThread();
        if (consumer != thread) {
            enter(thread);
        }
        if (closing) {
            throw closedFromNext();
        }
        RecordOrEvent whole = nextWholeRecord();
        return whole != null ? whole : read(thread);
    }

    /**
     * The common case, kept small enough for the JIT to inline into the caller's loop: the next record lies whole
     * (length and body) in the buffer being read. Reads with int fields, not the buffer's position and its checked
     * setter and getters, and asserts the two facts below instead of testing them per record, because for small
     * records this bookkeeping is a large share of the consumer's CPU: the consumer thread's nanoseconds per record
     * in the CPU line of the JMH benchmark {@code RecordThroughputBenchmark.records} ({@code -p recordBytes=8}).
     *
     * <p>Two things hold whenever a buffer is being read, so they are asserted, not tested per record: no buffer is
     * handed out ({@code releaseCurrent} hands one out only as it lets the buffer being read go), and the channel's
     * deserializer is between records (read() gives it every buffer first, and keeps the buffer only when it
     * returned a record, which leaves it between records; a corrupt length throws before the read position moves,
     * so the next call reads the same length, declines it, and read() throws again).
     *
     * @return the record, or null when {@link #read} must take over (no buffer, a record cut by the buffer's end,
     *     a corrupt length, which read() reports)
     */
    private RecordOrEvent nextWholeRecord() {
        if (current == null) {
            return null;
        }
        assert handedOut == null && currentDeserializer.isBetweenRecords();
        int start = readPosition;
        int available = readLimit - start;
        if (available < RecordFraming.LENGTH_BYTES) {
            return null;
        }
        int length = currentData.getInt(start);
        if (length < 0 || length > available - RecordFraming.LENGTH_BYTES) {
            return null;
        }
        ByteBuffer view = currentView;
        int end = start + RecordFraming.LENGTH_BYTES + length;
        view.limit(end);
        view.position(end - length);
        readPosition = end;
        int channel = currentChannel;
        if (end == readLimit) {
            releaseCurrent(true);
        }
        return holder.set(channel, false, view);
    }

    /** {@code thread} calls next() for the first time (or again after another thread did). */
    private void enter(Thread thread) {
        Thread waiting = waiter;
        if (waiting != null && waiting != thread) {
            throw new IllegalStateException("RecordReader.next() called by " + thread.getName()
                    + " while another call of next() was under way (by " + waiting.getName()
                    + "): one consumer thread at a time");
        }
        consumer = thread; // volatile store, then the caller's volatile load of closing: the Dekker pair of close()
    }

    /**
     * The consumer saw {@code closing}: recycles what it holds (it owns those buffers, so it is safe here) and
     * marks the reader closed.
     *
     * @return the exception for next() to throw
     */
    private IllegalStateException closedFromNext() {
        recycleAllAndClose();
        return new IllegalStateException("RecordReader.next() called after close()");
    }

    /** The body of {@link #next()}, on the consumer's thread. */
    private RecordOrEvent read(Thread thread) throws IOException, InterruptedException {
        if (finished) {
            return null;
        }
        recycleHandedOut();
        while (true) {
            if (current != null) {
                // Whatever nextWholeRecord() left: the first record of a buffer, records cut by a buffer's end.
                ByteBuffer view = currentView;
                currentData.position(readPosition);
                ByteBuffer record = currentDeserializer.nextRecord(currentData, view);
                readPosition = currentData.position();
                if (record != null) {
                    int channel = currentChannel;
                    if (readPosition == readLimit) {
                        releaseCurrent(record == view);
                    }
                    return holder.set(channel, false, record);
                }
                releaseCurrent(false);
            }
            Optional<BufferOrEvent> next = awaitNext(thread);
            if (next.isEmpty()) {
                if (closing) {
                    recycleAllAndClose();
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

    /** The gate's next buffer or event, with {@link #waiter} set while the call may block (once per buffer). */
    private Optional<BufferOrEvent> awaitNext(Thread thread) throws IOException, InterruptedException {
        waiter = thread;
        try {
            return gate.getNext();
        } finally {
            waiter = null;
        }
    }

    /**
     * Closes the gate; idempotent; any thread. On the consumer's thread (the one that called {@link #next()}
     * last), before any next(), or once the consumer's thread has ended, it also recycles the buffers the reader
     * holds at once.
     *
     * <p>From another thread while the consumer's thread lives, it recycles through the gate what is queued
     * there and wakes a next() waiting in it, but leaves the at most two buffers the consumer holds (the one it
     * reads, the one its last record points into) to the consumer: its next call of next() recycles them and
     * throws, as does its own close(). So the record the consumer holds stays intact however the threads
     * interleave. A consumer thread that lives on and never touches the reader again keeps those buffers out of
     * the pool; once the environment is closed their memory goes with the reader to the garbage collector
     * (a destroyed pool frees what comes back and never frees what is still out).
     */
    @Override
    public void close() {
        closing = true; // volatile store, then the volatile load of consumer below: the Dekker pair of enter()
        try {
            gate.close(); // wakes a next() waiting in gate.getNext()
        } finally {
            Thread owner = consumer;
            Thread self = Thread.currentThread();
            if (owner == null) {
                // No next() has run (one starting now sees closing before it touches a buffer): nothing is held.
            } else if (owner == self || !owner.isAlive()) {
                // The owner is here, or has ended (its end happens-before isAlive() returning false).
                recycleAllAndClose();
            } else {
                LOG.debug("RecordReader closed by {} while its consumer {} lives: the consumer's next call "
                        + "recycles the buffers it holds", self.getName(), owner.getName());
            }
        }
    }

    /**
     * Recycles the held buffers and marks the reader closed. Runs on the consumer's thread, or on a closing thread
     * that knows the consumer's is gone or was never there; the lock orders it with a new consumer thread that saw
     * {@code closing} at its first call.
     */
    private void recycleAllAndClose() {
        synchronized (recycleLock) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                recycleHandedOut();
            } finally {
                if (current != null) {
                    releaseCurrent(false);
                }
            }
        }
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
        readPosition = currentData.position();
        readLimit = currentData.limit();
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
