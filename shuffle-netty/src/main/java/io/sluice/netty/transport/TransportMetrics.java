package io.sluice.netty.transport;

import java.util.concurrent.atomic.LongAdder;

/**
 * Byte and buffer counters of one environment's transport, both directions. Updated on event loops, read from any
 * thread. {@link LongAdder}s keep the many event loops from contending on one cache line.
 */
public final class TransportMetrics {

    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder buffersSent = new LongAdder();
    private final LongAdder buffersReceived = new LongAdder();

    void onBufferSent(int bytes) {
        buffersSent.increment();
        bytesSent.add(bytes);
    }

    /** Counts {@code buffers} data buffers of {@code bytes} data bytes in all, sent as one file span. */
    void onBuffersSent(int buffers, long bytes) {
        buffersSent.add(buffers);
        bytesSent.add(bytes);
    }

    /** Counts one data or event buffer received by a remote channel. */
    public void onBufferReceived(int bytes) {
        buffersReceived.increment();
        bytesReceived.add(bytes);
    }

    /**
     * A buffer of {@code decompressedBytes} arrived as {@code wireBytes} compressed bytes: its channel counts the
     * decompressed size (onBufferReceived), this takes the difference off, so bytesReceived counts the wire.
     */
    void onDecompressed(int wireBytes, int decompressedBytes) {
        bytesReceived.add((long) wireBytes - decompressedBytes);
    }

    public long bytesSent() {
        return bytesSent.sum();
    }

    public long bytesReceived() {
        return bytesReceived.sum();
    }

    public long buffersSent() {
        return buffersSent.sum();
    }

    public long buffersReceived() {
        return buffersReceived.sum();
    }
}
