package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InFlightDataSink;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.RecordingInFlightSink;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The data in flight a pipelined writer hands out for a checkpoint and takes back at recovery (docs/contract.md
 * section 11): the unsent data a priority event overtakes ({@code broadcastPriorityEvent}), a queued event turned
 * into a priority one ({@code prioritizeQueuedEvent}), and recovered bytes queued ahead of live records
 * ({@code emitRecovered}). Segments of 64 bytes, so records span buffers; the fixture checks every segment is back.
 */
@Timeout(30)
class InFlightDataTest {

    private final PartitionFixture fixture = new PartitionFixture();

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    private ResultPartition partition(int subpartitions) throws Exception {
        return fixture.newPartition().subpartitions(subpartitions).setUp();
    }

    private static ResultSubpartitionView view(ResultPartition partition, int subpartition) {
        return partition.createSubpartitionView(subpartition, new RecordingAvailabilityListener());
    }

    /** Every element readable now: data as "data" (its bytes appended to {@code data}), events as "event:text". */
    private static List<String> drain(ResultSubpartitionView view, ByteArrayOutputStream data) {
        List<String> elements = new ArrayList<>();
        for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
            Polled polled = Polled.from(next);
            if (polled.isBuffer()) {
                data.writeBytes(polled.bytes());
                elements.add("data");
            } else if (polled.endOfPartition()) {
                elements.add("END");
            } else {
                elements.add((polled.isPriority() ? "priority:" : "event:") + polled.eventText());
            }
        }
        return elements;
    }

    /** The sizes of the data buffers readable now, in order (events are skipped); their bytes go to {@code data}. */
    private static List<Integer> drainDataSizes(ResultSubpartitionView view, ByteArrayOutputStream data) {
        List<Integer> sizes = new ArrayList<>();
        for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
            Polled polled = Polled.from(next);
            if (polled.isBuffer()) {
                data.writeBytes(polled.bytes());
                sizes.add(polled.bytes().length);
            }
        }
        return sizes;
    }

    private static ByteBuffer text(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String textOf(ByteBuffer payload) {
        return StandardCharsets.UTF_8.decode(payload.duplicate()).toString();
    }

    /** The framed bytes of records of {@code stream} numbered {@code from} to {@code to - 1}, {@code size} each. */
    private static byte[] framed(int stream, int from, int to, int size) {
        List<byte[]> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(TestRecords.recordBytes(stream, i, size));
        }
        return TestRecords.framed(records);
    }

    private static void emit(ResultPartition partition, int subpartition, int from, int to, int size)
            throws Exception {
        for (int i = from; i < to; i++) {
            partition.emitRecord(TestRecords.record(subpartition, i, size), subpartition);
        }
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    // --- broadcastPriorityEvent -------------------------------------------------------------------------------

    @Test
    void priorityEvent_handsExactlyTheUnsentBytesInOrder_partlySentHeadIncluded_andTheConsumerStillGetsThemAll()
            throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader0 = view(partition, 0);
        ResultSubpartitionView reader1 = view(partition, 1);
        // Subpartition 0: the reader takes the first 24 bytes of a buffer the producer then fills further.
        emit(partition, 0, 0, 1, 20);
        partition.flush(0);
        ByteArrayOutputStream sent0 = new ByteArrayOutputStream();
        assertEquals(List.of("data"), drain(reader0, sent0));
        emit(partition, 0, 1, 4, 100);
        emit(partition, 1, 0, 5, 30);
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        partition.broadcastPriorityEvent(text("barrier"), sink);
        emit(partition, 0, 4, 6, 10);
        emit(partition, 1, 5, 6, 10);
        partition.flushAll();

        byte[] before0 = concat(framed(0, 0, 1, 20), framed(0, 1, 4, 100));
        byte[] unsent0 = Arrays.copyOfRange(before0, sent0.size(), before0.length);
        assertEquals(24, sent0.size(), "the reader took the first record's buffer as it was");
        assertArrayEquals(unsent0, sink.bytes(0), "subpartition 0: the unsent rest, partly sent head included");
        assertArrayEquals(framed(1, 0, 5, 30), sink.bytes(1), "subpartition 1: everything queued");
        ByteArrayOutputStream rest0 = new ByteArrayOutputStream();
        List<String> elements0 = drain(reader0, rest0);
        assertEquals("priority:barrier", elements0.get(0), "the event overtakes the queued data");
        assertFalse(elements0.subList(1, elements0.size()).stream().anyMatch(e -> !e.equals("data")));
        assertArrayEquals(concat(unsent0, framed(0, 4, 6, 10)), rest0.toByteArray(),
                "the consumer still gets the overtaken data after the event, then the later records");
        ByteArrayOutputStream rest1 = new ByteArrayOutputStream();
        assertEquals("priority:barrier", drain(reader1, rest1).get(0));
        assertArrayEquals(concat(framed(1, 0, 5, 30), framed(1, 5, 6, 10)), rest1.toByteArray());
    }

    @Test
    void recordsEmittedAfterThePriorityEvent_startANewBuffer_andAreNeverHandedOver() throws Exception {
        ResultPartition partition = partition(1);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 1, 10); // 14 bytes in a buffer of 64 the producer could go on filling
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        partition.broadcastPriorityEvent(text("barrier"), sink);
        emit(partition, 0, 1, 2, 10);
        partition.flushAll();

        assertArrayEquals(framed(0, 0, 1, 10), sink.bytes(0));
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        assertEquals(List.of(14, 14), drainDataSizes(reader, data), "the later record went into a buffer of its own");
        assertArrayEquals(framed(0, 0, 2, 10), data.toByteArray());
    }

    @Test
    void priorityEvent_withNothingQueued_handsNothing_andStillReachesTheReader() throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 3, 10);
        partition.flushAll();
        drain(reader, new ByteArrayOutputStream()); // everything sent: nothing left to overtake
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        partition.broadcastPriorityEvent(text("barrier"), sink);

        assertEquals(0, sink.buffers(), "nothing queued, nothing handed: " + sink.indexes());
        assertEquals(List.of("priority:barrier"), drain(reader, new ByteArrayOutputStream()));
    }

    @Test
    void subpartitionWhoseConsumerHasGone_handsNothing() throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView gone = view(partition, 1);
        emit(partition, 0, 0, 3, 10);
        emit(partition, 1, 0, 3, 10);
        gone.releaseAllResources();
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        partition.broadcastPriorityEvent(text("barrier"), sink);

        assertEquals(List.of(0), sink.indexes());
        assertArrayEquals(framed(0, 0, 3, 10), sink.bytes(0));
    }

    @Test
    void refusedPriorityEvent_handsNothing_andNoSubpartitionGetsIt() throws Exception {
        ResultPartition partition = partition(2);
        emit(partition, 0, 0, 3, 10);
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        ShuffleException tooLarge = assertThrows(ShuffleException.class, () -> partition.broadcastPriorityEvent(
                ByteBuffer.allocate(ResultPartitionWriter.MAX_EVENT_BYTES + 1), sink));
        assertTrue(tooLarge.getMessage().contains(String.valueOf(ResultPartitionWriter.MAX_EVENT_BYTES)),
                tooLarge.getMessage());
        for (int i = 0; i < ResultPartitionWriter.MAX_QUEUED_EVENTS; i++) {
            partition.broadcastEvent(text("unread " + i), false);
        }
        int queued0 = partition.subpartition(0).getNumberOfQueuedBuffers();
        ShuffleException tooMany = assertThrows(ShuffleException.class,
                () -> partition.broadcastPriorityEvent(text("barrier"), sink));

        assertTrue(tooMany.getMessage().contains("not reading"), tooMany.getMessage());
        assertEquals(0, sink.buffers(), "a refused event hands nothing");
        assertEquals(queued0, partition.subpartition(0).getNumberOfQueuedBuffers(), "no subpartition got it");
    }

    @Test
    void sinkThatHoldsItsBuffers_pastTheWritersClose_getsUnchangedBytes_andEverySegmentGoesBackOnceItRecycles()
            throws Exception {
        ResultPartition partition = partition(2);
        emit(partition, 0, 0, 4, 50);
        emit(partition, 1, 0, 2, 70);
        RecordingInFlightSink sink = RecordingInFlightSink.holding();
        partition.broadcastPriorityEvent(text("barrier"), sink);

        partition.close(); // released before finish: the queues are dropped, the sink's references stay
        assertTrue(partition.isReleased());
        ByteArrayOutputStream stillThere = new ByteArrayOutputStream();
        for (BufferOrEvent held : sink.held()) {
            if (held.channelIndex() == 0) {
                stillThere.writeBytes(TestRecords.bytesOf(held.data()));
            }
        }
        assertArrayEquals(framed(0, 0, 4, 50), stillThere.toByteArray(), "bytes unchanged while held");
        assertTrue(fixture.globalPool().getNumberOfAvailableMemorySegments()
                < fixture.globalPool().getTotalNumberOfMemorySegments(), "the held segments are not back yet");
        BufferOrEvent first = sink.held().get(0);
        sink.recycleHeld();

        IllegalStateException twice = assertThrows(IllegalStateException.class, first::recycle);
        assertTrue(twice.getMessage().contains("subpartition 0"), twice.getMessage());
        // closeAndCheckForLeaks: every segment is back
    }

    @Test
    void sinkThatThrows_failsTheCallWithShuffleException_andTheBuffersItDidNotTakeAreRecycled() throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader = view(partition, 1);
        emit(partition, 0, 0, 4, 50);
        emit(partition, 1, 0, 4, 50);
        List<BufferOrEvent> taken = new ArrayList<>();
        InFlightDataSink failing = (index, buffer) -> {
            if (!taken.isEmpty()) {
                throw new IllegalStateException("disk full");
            }
            taken.add(buffer);
        };

        ShuffleException error = assertThrows(ShuffleException.class,
                () -> partition.broadcastPriorityEvent(text("barrier"), failing));

        assertTrue(error.getMessage().contains("subpartition 0"), error.getMessage());
        assertInstanceOf(IllegalStateException.class, error.getCause());
        assertEquals("priority:barrier", drain(reader, new ByteArrayOutputStream()).get(0),
                "the event was queued everywhere before the sink was called");
        taken.get(0).recycle();
    }

    /**
     * A reader polling on its own thread while the producer emits, flushes and sends priority events: each event
     * reaches the reader exactly where its overtaken bytes begin, so what the reader had read before the event and
     * what the sink got make up every byte emitted before it, no byte missing and none both sent and handed.
     */
    @Test
    void priorityEventsRacingAReader_handExactlyTheBytesTheReaderHadNotTakenBeforeEachEvent() throws Exception {
        ResultPartition partition = fixture.newPartition().buffers(4, 16).setUp();
        RecordingAvailabilityListener listener = new RecordingAvailabilityListener();
        ResultSubpartitionView view = partition.createSubpartitionView(0, listener);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<Integer> eventAt = new ArrayList<>();
        BackgroundTask<Void> reader = BackgroundTask.start("reader", () -> {
            while (true) {
                int seen = listener.total();
                for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
                    Polled polled = Polled.from(next);
                    if (polled.endOfPartition()) {
                        return;
                    }
                    if (polled.isBuffer()) {
                        stream.writeBytes(polled.bytes());
                    } else {
                        eventAt.add(stream.size());
                    }
                }
                listener.awaitMoreThan(seen);
            }
        });
        Random random = new Random(7);
        List<byte[]> handed = new ArrayList<>();
        List<Integer> emittedBefore = new ArrayList<>();
        int emitted = 0;
        for (int round = 0; round < 300; round++) {
            for (int r = random.nextInt(4); r > 0; r--) {
                int size = random.nextInt(150);
                partition.emitRecord(TestRecords.record(0, round, size), 0);
                emitted += 4 + size;
            }
            if (random.nextBoolean()) {
                partition.flush(0);
            }
            RecordingInFlightSink sink = RecordingInFlightSink.recycling();
            partition.broadcastPriorityEvent(text("barrier " + round), sink);
            handed.add(sink.bytes(0));
            emittedBefore.add(emitted);
        }
        partition.finish();
        reader.await();

        byte[] all = stream.toByteArray();
        assertEquals(emitted, all.length, "every byte reached the reader once");
        assertEquals(handed.size(), eventAt.size());
        for (int k = 0; k < handed.size(); k++) {
            int from = eventAt.get(k);
            assertEquals(emittedBefore.get(k), from + handed.get(k).length,
                    "event " + k + ": read before it plus handed is everything emitted before it");
            assertArrayEquals(Arrays.copyOfRange(all, from, emittedBefore.get(k)), handed.get(k),
                    "event " + k + ": the sink got the bytes the reader read after the event");
        }
    }

    // --- prioritizeQueuedEvent --------------------------------------------------------------------------------

    /** Replaces the queued event whose payload is {@code match} with {@code replacement}. */
    private static Function<ByteBuffer, ByteBuffer> replacing(String match, String replacement) {
        return payload -> textOf(payload).equals(match) ? text(replacement) : null;
    }

    @Test
    void queuedBlockingEvent_madePriority_reachesTheReaderFirst_handsTheDataBeforeIt_andNoLongerBlocks()
            throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader0 = view(partition, 0);
        emit(partition, 0, 0, 3, 40);
        emit(partition, 1, 0, 2, 40);
        partition.broadcastBlockingEvent(text("barrier 7"));
        emit(partition, 0, 3, 5, 40);
        emit(partition, 1, 2, 4, 40);
        partition.flushAll();
        int backlog = partition.subpartition(0).getBacklog();
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        int changed = partition.prioritizeQueuedEvent(replacing("barrier 7", "unaligned 7"), sink);

        assertEquals(2, changed);
        assertArrayEquals(framed(0, 0, 3, 40), sink.bytes(0), "only the data queued before the event");
        assertArrayEquals(framed(1, 0, 2, 40), sink.bytes(1));
        assertEquals(backlog, partition.subpartition(0).getBacklog(), "no data moved");
        assertEquals(1, partition.subpartition(0).queuedUserEvents(), "one event replaced by another");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        List<String> elements = drain(reader0, data);
        assertEquals("priority:unaligned 7", elements.get(0));
        assertFalse(elements.contains("event:barrier 7"), "the blocking event itself is gone: " + elements);
        assertArrayEquals(framed(0, 0, 5, 40), data.toByteArray(), "all data, without waiting for a resume");
        assertFalse(partition.subpartition(0).isBlockedByEvent());
        assertEquals(0, partition.subpartition(0).queuedUserEvents());
    }

    @Test
    void onlyTheFirstMatchingEventMoves_eventsBeforeItKeepTheirPlace_andDataAfterItIsNotOvertaken()
            throws Exception {
        ResultPartition partition = partition(1);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 1, 10);
        partition.broadcastEvent(text("a"), false);
        emit(partition, 0, 1, 2, 10);
        partition.broadcastEvent(text("b"), false);
        emit(partition, 0, 2, 3, 10);
        partition.broadcastEvent(text("b"), false);
        partition.flushAll();
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        assertEquals(1, partition.prioritizeQueuedEvent(replacing("b", "b!"), sink));

        assertArrayEquals(framed(0, 0, 2, 10), sink.bytes(0), "the data before the first b, none of the events");
        assertEquals(List.of("priority:b!", "data", "event:a", "data", "data", "event:b"),
                drain(reader, new ByteArrayOutputStream()));
    }

    @Test
    void eventAlreadySent_isLeftAlone_andNothingMatchingLeavesEverySubpartitionUnchanged() throws Exception {
        ResultPartition partition = partition(1);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 2, 10);
        partition.broadcastBlockingEvent(text("barrier 7"));
        emit(partition, 0, 2, 3, 10);
        partition.flushAll();
        assertEquals(List.of("data", "event:barrier 7"), drain(reader, new ByteArrayOutputStream()));
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        assertEquals(0, partition.prioritizeQueuedEvent(replacing("barrier 7", "unaligned 7"), sink));
        assertEquals(0, partition.prioritizeQueuedEvent(payload -> null, sink));

        assertEquals(0, sink.buffers());
        assertTrue(partition.subpartition(0).isBlockedByEvent(), "still blocked by the event it sent");
        reader.resumeConsumption();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        assertEquals(List.of("data"), drain(reader, data));
        assertArrayEquals(framed(0, 2, 3, 10), data.toByteArray());
    }

    @Test
    void matchTheReaderSendsWhileTheFunctionRuns_isLeftAlone_andTheNextMatchMovesInstead() throws Exception {
        ResultPartition partition = partition(1);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 1, 10);
        partition.broadcastEvent(text("barrier 1"), false);
        emit(partition, 0, 1, 2, 10);
        partition.broadcastEvent(text("barrier 2"), false);
        partition.flushAll();
        List<String> readMeanwhile = new ArrayList<>();
        Function<ByteBuffer, ByteBuffer> readerRacing = payload -> {
            if (readMeanwhile.isEmpty()) {
                // The reader takes the first record and the first barrier while the producer decides.
                readMeanwhile.add(Polled.take(reader).isBuffer() ? "data" : "event");
                readMeanwhile.add(Polled.take(reader).eventText());
            }
            return text("priority " + textOf(payload));
        };
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        assertEquals(1, partition.prioritizeQueuedEvent(readerRacing, sink));

        assertEquals(List.of("data", "barrier 1"), readMeanwhile);
        assertArrayEquals(framed(0, 1, 2, 10), sink.bytes(0), "only what was still queued before barrier 2");
        assertEquals(List.of("priority:priority barrier 2", "data"), drain(reader, new ByteArrayOutputStream()));
    }

    // --- emitRecovered ----------------------------------------------------------------------------------------

    @Test
    void recoveredData_goesOutAsBuffersHoldingExactlyItsBytes_afterWhatIsQueued_beforeLaterRecords()
            throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader = view(partition, 0);
        emit(partition, 0, 0, 1, 10);
        byte[] recovered = Arrays.copyOfRange(framed(0, 1, 5, 30), 5, 5 + 150); // cut inside records
        ByteBuffer source = ByteBuffer.wrap(concat(new byte[7], recovered));
        source.position(7);

        partition.emitRecovered(0, source, false);
        emit(partition, 0, 9, 10, 10);
        partition.flushAll();

        assertEquals(7, source.position(), "position left as it was");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        assertEquals(List.of(14, 64, 64, 22, 14), drainDataSizes(reader, data),
                "the recovered bytes fill buffers of their own, spanning segments");
        assertArrayEquals(concat(concat(framed(0, 0, 1, 10), recovered), framed(0, 9, 10, 10)), data.toByteArray());
        partition.finish();
        assertEquals(14 + 150 + 14, partition.bytesOut(), "recovered bytes count as data out");
    }

    @Test
    void recoveredEvent_reachesOnlyItsSubpartition_inOrderWithItsData() throws Exception {
        ResultPartition partition = partition(2);
        ResultSubpartitionView reader0 = view(partition, 0);
        ResultSubpartitionView reader1 = view(partition, 1);
        emit(partition, 0, 0, 1, 10);
        emit(partition, 1, 0, 1, 10);

        partition.emitRecovered(1, text("recovered"), true);
        emit(partition, 0, 1, 2, 10);
        emit(partition, 1, 1, 2, 10);
        partition.flushAll();

        assertEquals(List.of("data"), drain(reader0, new ByteArrayOutputStream()), "both records, no event");
        assertEquals(List.of("data", "event:recovered", "data"), drain(reader1, new ByteArrayOutputStream()));
        assertThrows(ShuffleException.class, () -> partition.emitRecovered(1,
                ByteBuffer.allocate(ResultPartitionWriter.MAX_EVENT_BYTES + 1), true));
        assertThrows(IndexOutOfBoundsException.class, () -> partition.emitRecovered(2, text("x"), false));
    }

    @Test
    void recoveredData_waitsForABufferLikeARecord_andCompletesOnceTheReaderRecycles() throws Exception {
        ResultPartition partition = fixture.newPartition().buffers(2, 2).setUp();
        ResultSubpartitionView reader = view(partition, 0);
        byte[] recovered = new byte[3 * PartitionFixture.DEFAULT_SEGMENT_SIZE];
        Arrays.fill(recovered, (byte) 7);
        BackgroundTask<Void> producer = BackgroundTask.start("recovering",
                () -> partition.emitRecovered(0, ByteBuffer.wrap(recovered), false));
        producer.awaitParkedIn("requestBufferBuilderBlocking", Await.EVENTUALLY);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        Await.until(() -> {
            drainDataSizes(reader, data);
            return data.size() == recovered.length;
        }, "the reader gets every recovered byte as it recycles buffers");

        producer.await();
        assertArrayEquals(recovered, data.toByteArray());
        assertNull(reader.getNextBuffer());
    }
}
