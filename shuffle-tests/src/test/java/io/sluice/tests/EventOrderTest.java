package io.sluice.tests;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Events among records: a priority event overtakes the queued records, other events keep their place. */
class EventOrderTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final int SUBPARTITIONS = 2;
    /** Record 7 spans three buffers, so the priority event also overtakes a record cut across buffers. */
    private static final int SPANNING_RECORD = 7;

    @EveryLayout
    void priorityEvent_overtakesQueuedRecords_whileOtherEventsKeepTheirPlace(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(64, SEGMENT_SIZE))) {
            RegisteredPartition partition = shuffle.registerPartition(SUBPARTITIONS);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            List<RecordReader> readers = new ArrayList<>();
            for (int s = 0; s < SUBPARTITIONS; s++) {
                readers.add(shuffle.setUpReader("consumer " + s, s, partition));
            }

            emitRecords(writer, 0, 5);
            writer.broadcastEvent(event("first"), false);
            emitRecords(writer, 5, 10);
            writer.broadcastEvent(event("urgent"), true);
            emitRecords(writer, 10, 12);
            writer.broadcastEvent(event("last"), false);
            writer.finish();

            List<String> expected = List.of("event urgent",
                    "record 0", "record 1", "record 2", "record 3", "record 4", "event first",
                    "record 5", "record 6", "record 7", "record 8", "record 9",
                    "record 10", "record 11", "event last");
            for (int s = 0; s < SUBPARTITIONS; s++) {
                assertEquals(expected, readAll(readers.get(s)), "what consumer " + s + " read, in order");
            }
        }
    }

    @EveryLayout
    void priorityEvent_reachesTheGateFlaggedAsPriority_beforeDataQueuedEarlier_otherElementsUnflagged(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertPriorityEventFlaggedAndFirst(shuffle);
        }
    }

    /** The same over a transport: the priority event frame carries the flag to a remote channel. */
    @EveryTransport
    void priorityEvent_overATransport_reachesTheRemoteGateFlaggedAsPriority_beforeDataQueuedEarlier(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertPriorityEventFlaggedAndFirst(shuffle);
        }
    }

    private static void assertPriorityEventFlaggedAndFirst(ShuffleFixture shuffle) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(1);
        ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
        writer.setup();
        InputGate gate = shuffle.createGate("consumer", 0, partition);
        gate.setup();
        for (int i = 0; i < 4; i++) {
            writer.emitRecord(record(i), 0);
        }
        writer.broadcastEvent(event("ordinary"), false);
        writer.emitRecord(record(SPANNING_RECORD), 0);
        writer.flushAll();
        writer.broadcastEvent(event("urgent"), true);

        gate.priorityEventAvailableFuture().get(30, TimeUnit.SECONDS);
        BufferOrEvent first = gate.pollNext().orElseThrow();
        assertTrue(first.isEvent() && first.isPriority(), "the priority event comes first, flagged: " + first);
        assertEquals("urgent", StandardCharsets.UTF_8.decode(first.data()).toString());
        first.recycle();
        writer.finish();
        int events = 0;
        for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
            assertFalse(next.get().isPriority(), "only the priority event is flagged: " + next.get());
            events += next.get().isEvent() ? 1 : 0;
            next.get().recycle();
        }
        assertEquals(1, events, "the ordinary event, unflagged");
        gate.close();
        writer.close();
    }

    /** Emits records {@code from} to {@code to - 1} to every subpartition, one by one. */
    private static void emitRecords(ResultPartitionWriter writer, int from, int to) throws IOException {
        for (int i = from; i < to; i++) {
            for (int s = 0; s < SUBPARTITIONS; s++) {
                writer.emitRecord(record(i), s);
            }
        }
    }

    /** Record {@code i}: its number, padded to a size that depends on it. */
    private static ByteBuffer record(int i) {
        ByteBuffer record = ByteBuffer.allocate(sizeOf(i));
        record.putInt(0, i);
        return record;
    }

    private static int sizeOf(int i) {
        return i == SPANNING_RECORD ? 2 * SEGMENT_SIZE + 100 : Integer.BYTES + 10 * i;
    }

    private static ByteBuffer event(String name) {
        return ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8));
    }

    /** @return "record N" or "event NAME" for everything the reader hands out, until the gate finishes */
    private static List<String> readAll(RecordReader reader) throws Exception {
        List<String> read = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            ByteBuffer data = next.data();
            if (next.isEvent()) {
                read.add("event " + StandardCharsets.UTF_8.decode(data));
            } else {
                int number = data.getInt(data.position());
                assertEquals(sizeOf(number), data.remaining(), "size of record " + number);
                read.add("record " + number);
            }
        }
        return read;
    }
}
