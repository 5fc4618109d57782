package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InFlightDataSink;
import io.sluice.netty.testing.TestRecords;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link InFlightDataSink} for tests: copies the bytes of each buffer it is handed, checks that it is data of
 * the channel it is handed for and that it comes on the thread that made the sink (the consumer's), and either
 * recycles the buffer at once or keeps it until {@link #recycleKept()}, as a sink that writes late would.
 *
 * <p>The consumer's thread only.
 */
final class RecordingSink implements InFlightDataSink {

    /** One buffer handed to the sink: its channel and a copy of its bytes. */
    record Persisted(int channel, byte[] bytes) {

        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private final Thread consumer = Thread.currentThread();
    private final boolean keep;
    private final List<Persisted> persisted = new ArrayList<>();
    private final List<BufferOrEvent> kept = new ArrayList<>();

    private RecordingSink(boolean keep) {
        this.keep = keep;
    }

    /** A sink that recycles each buffer as soon as it copied its bytes. */
    static RecordingSink recyclingAtOnce() {
        return new RecordingSink(false);
    }

    /** A sink that keeps every buffer until {@link #recycleKept()}. */
    static RecordingSink keepingBuffers() {
        return new RecordingSink(true);
    }

    @Override
    public void accept(int index, BufferOrEvent buffer) {
        assertSame(consumer, Thread.currentThread(), "the sink runs on the consumer's thread");
        assertFalse(buffer.isEvent(), "events are never persisted: " + buffer);
        assertFalse(buffer.isPriority(), "a persisted buffer is no priority event: " + buffer);
        assertEquals(index, buffer.channelIndex(), "the buffer names the channel it is handed for");
        persisted.add(new Persisted(index, TestRecords.bytesOf(buffer.data())));
        if (keep) {
            kept.add(buffer);
        } else {
            buffer.recycle();
        }
    }

    /** Everything handed so far, in the order it came. */
    List<Persisted> persisted() {
        return List.copyOf(persisted);
    }

    /** The bytes handed for {@code channel} so far, as text, in order. */
    List<String> texts(int channel) {
        List<String> texts = new ArrayList<>();
        for (Persisted each : persisted) {
            if (each.channel() == channel) {
                texts.add(each.text());
            }
        }
        return texts;
    }

    /** The bytes of the buffers this sink keeps, read now, as text. */
    List<String> keptTexts() {
        List<String> texts = new ArrayList<>();
        for (BufferOrEvent buffer : kept) {
            texts.add(StandardCharsets.UTF_8.decode(buffer.data()).toString());
        }
        return texts;
    }

    /** Recycles the buffers this sink kept; returns them, each recycled once. */
    List<BufferOrEvent> recycleKept() {
        List<BufferOrEvent> recycled = List.copyOf(kept);
        kept.clear();
        for (BufferOrEvent buffer : recycled) {
            buffer.recycle();
        }
        return recycled;
    }
}
