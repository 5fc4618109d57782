package io.sluice.flink;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;

/**
 * The input data an unaligned checkpoint persisted for one gate, on its way back in after a restore. Flink's
 * channel-state reader asks a gate's channels (the stand-ins of {@link FlinkChannelStandIns}) for buffers, fills
 * them and hands them back; each goes to the Sluice gate's {@link io.sluice.api.InputGate#addRecovered}, which hands
 * it out before the channel's live data, as it is: the task recycles Flink's buffer.
 *
 * <p>Memory: heap buffers of one segment each, at most {@code maxBuffers} out at a time (being filled, queued in the
 * gate or held by the task's record deserializer), so a large channel state makes the reader wait for the task
 * instead of filling the heap; the task consumes recovered input while the reader restores it. Recovery only: no
 * part of this is on the data path of a running job.
 *
 * <p>Threads: buffers are requested and handed back on Flink's channel-state thread and recycled by the task thread.
 */
final class RecoveredInput {

    private final io.sluice.api.InputGate sluice;
    private final int[] toSluiceChannel;
    private final int bufferSize;
    private final Semaphore buffers;

    /**
     * @param sluice          the Sluice gate that hands recovered input out
     * @param toSluiceChannel the Sluice channel of each Flink channel
     * @param bufferSize      the size of each recovered buffer (a segment)
     * @param maxBuffers      the most recovered buffers out at a time
     */
    RecoveredInput(io.sluice.api.InputGate sluice, int[] toSluiceChannel, int bufferSize, int maxBuffers) {
        this.sluice = sluice;
        this.toSluiceChannel = toSluiceChannel;
        this.bufferSize = bufferSize;
        this.buffers = new Semaphore(maxBuffers);
    }

    /** Waits while {@code maxBuffers} are out; the buffer's recycling gives its permit back. */
    Buffer requestBuffer() throws InterruptedException {
        buffers.acquire();
        return new NetworkBuffer(MemorySegmentFactory.allocateUnpooledSegment(bufferSize),
                segment -> buffers.release());
    }

    /** Ownership of {@code buffer} passes to the Sluice gate, then to whoever takes it from there. */
    void onRecovered(int channelIndex, Buffer buffer) {
        sluice.addRecovered(new Element(toSluiceChannel[channelIndex], buffer));
    }

    /**
     * A recovered Flink buffer or event as a Sluice gate hands it out; {@link SluiceBuffers#wrap} unwraps it again, so
     * the task gets Flink's buffer itself. Recycled once, by whoever holds it last.
     */
    static final class Element implements io.sluice.api.BufferOrEvent {

        private final int channelIndex;
        private final Buffer buffer;

        Element(int channelIndex, Buffer buffer) {
            this.channelIndex = channelIndex;
            this.buffer = buffer;
        }

        /** @return Flink's buffer; ownership passes to the caller */
        Buffer flinkBuffer() {
            return buffer;
        }

        @Override
        public int channelIndex() {
            return channelIndex;
        }

        @Override
        public boolean isEvent() {
            return !buffer.isBuffer();
        }

        @Override
        public ByteBuffer data() {
            return buffer.getNioBufferReadable();
        }

        @Override
        public void recycle() {
            buffer.recycleBuffer();
        }

        @Override
        public String toString() {
            return "recovered " + (isEvent() ? "event" : "buffer") + " of " + buffer.readableBytes()
                    + " bytes for channel " + channelIndex;
        }
    }
}
