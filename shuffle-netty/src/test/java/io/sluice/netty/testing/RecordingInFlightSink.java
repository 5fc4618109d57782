package io.sluice.netty.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InFlightDataSink;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An {@link InFlightDataSink} that keeps a copy of the bytes it is handed, per index and in order, and checks that
 * each buffer is data for the index it is handed with. It recycles each buffer at once, or holds it until
 * {@link #recycleHeld()} (a sink that writes its buffers later).
 *
 * <p>Threads: called on the thread that hands it buffers; read it on that thread afterwards.
 */
public final class RecordingInFlightSink implements InFlightDataSink {

    private final boolean hold;
    private final Map<Integer, ByteArrayOutputStream> bytes = new TreeMap<>();
    private final List<BufferOrEvent> held = new ArrayList<>();
    private int buffers;

    private RecordingInFlightSink(boolean hold) {
        this.hold = hold;
    }

    /** @return a sink that copies each buffer's bytes and recycles it at once */
    public static RecordingInFlightSink recycling() {
        return new RecordingInFlightSink(false);
    }

    /** @return a sink that copies each buffer's bytes and holds it until {@link #recycleHeld()} */
    public static RecordingInFlightSink holding() {
        return new RecordingInFlightSink(true);
    }

    @Override
    public void accept(int index, BufferOrEvent buffer) {
        assertFalse(buffer.isEvent(), "a sink gets data buffers only: " + buffer);
        assertEquals(index, buffer.channelIndex(), "the buffer's index is the one it is handed with");
        bytes.computeIfAbsent(index, i -> new ByteArrayOutputStream()).writeBytes(TestRecords.bytesOf(buffer.data()));
        buffers++;
        if (hold) {
            held.add(buffer);
        } else {
            buffer.recycle();
        }
    }

    /** @return the bytes handed for {@code index}, concatenated in order (empty when none) */
    public byte[] bytes(int index) {
        ByteArrayOutputStream stream = bytes.get(index);
        return stream == null ? new byte[0] : stream.toByteArray();
    }

    /** @return the indexes anything was handed for, ascending */
    public List<Integer> indexes() {
        return List.copyOf(bytes.keySet());
    }

    /** @return how many buffers were handed in all */
    public int buffers() {
        return buffers;
    }

    /** @return the buffers held and not recycled yet */
    public List<BufferOrEvent> held() {
        return List.copyOf(held);
    }

    /** Recycles every held buffer once. */
    public void recycleHeld() {
        for (BufferOrEvent buffer : held) {
            buffer.recycle();
        }
        held.clear();
    }
}
