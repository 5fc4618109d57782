package io.sluice.flink.testing;

import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.util.CloseableIterator;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Flink's channel-state writer as a test sees it: keeps a copy of the bytes of every input and output buffer handed
 * to it, per checkpoint and channel, in the order handed, and recycles each buffer at once, as Flink's writer does
 * once it has written one; output handed as a future is recorded once the future completes. Checks that only data
 * buffers come. Thread-safe.
 */
public final class RecordingChannelStateWriter extends ChannelStateWriter.NoOpChannelStateWriter {

    private final Map<String, ByteArrayOutputStream> bytes = new HashMap<>();
    private final Map<String, CompletableFuture<List<Buffer>>> futures = new HashMap<>();
    private int buffers;

    @Override
    public synchronized void addInputData(long checkpointId, InputChannelInfo info, int startSeqNum,
                                          CloseableIterator<Buffer> data) {
        try (CloseableIterator<Buffer> all = data) {
            while (all.hasNext()) {
                record("input " + checkpointId + " " + info, all.next());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void addOutputData(long checkpointId, ResultSubpartitionInfo info, int startSeqNum,
                                           Buffer... data) {
        for (Buffer buffer : data) {
            record("output " + checkpointId + " " + info, buffer);
        }
    }

    /**
     * Keeps {@code dataFuture} (see {@link #outputFuture}); the buffers it completes with are recorded as output, as
     * Flink's writer writes them once the future completes.
     */
    @Override
    public synchronized void addOutputDataFuture(long checkpointId, ResultSubpartitionInfo info, int startSeqNum,
                                                 CompletableFuture<List<Buffer>> dataFuture) {
        String key = "output " + checkpointId + " " + info;
        futures.put(key, dataFuture);
        dataFuture.thenAccept(buffers -> {
            synchronized (this) {
                for (Buffer buffer : buffers) {
                    record(key, buffer);
                }
            }
        });
    }

    /** @return the output future registered for {@code subpartition} in {@code checkpointId}, or null */
    public synchronized CompletableFuture<List<Buffer>> outputFuture(long checkpointId,
                                                                     ResultSubpartitionInfo subpartition) {
        return futures.get("output " + checkpointId + " " + subpartition);
    }

    private void record(String key, Buffer buffer) {
        try {
            if (!buffer.isBuffer()) {
                throw new IllegalArgumentException("an event handed as channel state for " + key);
            }
            ByteBuffer readable = buffer.getNioBufferReadable();
            byte[] copy = new byte[readable.remaining()];
            readable.get(copy);
            bytes.computeIfAbsent(key, k -> new ByteArrayOutputStream()).writeBytes(copy);
            buffers++;
        } finally {
            buffer.recycleBuffer();
        }
    }

    /** @return the input bytes persisted for {@code channel} in {@code checkpointId}, in order; empty if none */
    public synchronized byte[] input(long checkpointId, InputChannelInfo channel) {
        return bytesOf("input " + checkpointId + " " + channel);
    }

    /** @return the output bytes persisted for {@code subpartition} in {@code checkpointId}, in order; empty if none */
    public synchronized byte[] output(long checkpointId, ResultSubpartitionInfo subpartition) {
        return bytesOf("output " + checkpointId + " " + subpartition);
    }

    /** @return the number of buffers handed so far */
    public synchronized int buffers() {
        return buffers;
    }

    private byte[] bytesOf(String key) {
        ByteArrayOutputStream recorded = bytes.get(key);
        return recorded == null ? new byte[0] : recorded.toByteArray();
    }
}
