package io.sluice.tests;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.RecordingInFlightSink;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data in flight a writer hands out for a checkpoint and queues back at recovery (docs/contract.md section 11),
 * end to end: in one environment and over every transport. The fixture checks that every segment is back.
 */
class InFlightDataTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    /** A record that fills one buffer exactly with its length prefix. */
    private static final int ONE_BUFFER_RECORD = SEGMENT_SIZE - 4;
    /**
     * A pipelined partition of one subpartition holds 2 x 1 + 8 buffers, and a consumer of one remote channel has as
     * many credits: of 19 full buffers at most 10 are sent before the consumer reads, so at least 9 stay queued. In
     * one environment nothing is sent before the consumer reads, and 9 fit the producer's pool.
     */
    private static final int UNSENT_AT_LEAST = 9;
    private static final int RECORDS_AFTER = 3;

    @EveryLayout
    void priorityEvent_handsTheUnsentTailOfTheDataBeforeIt_andTheConsumerGetsTheEventFirstThenEveryRecord(
            Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertOvertakenDataIsTheUnsentTail(shuffle, UNSENT_AT_LEAST);
        }
    }

    @EveryTransport
    void priorityEvent_overATransport_handsTheUnsentTailOfTheDataBeforeIt_andTheConsumerGetsEveryRecord(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertOvertakenDataIsTheUnsentTail(shuffle, 2 * UNSENT_AT_LEAST + 1);
        }
    }

    /** The transport compresses into a copy as it sends: the sink gets the bytes as they were written. */
    @EveryTransport
    void priorityEvent_withCompressionOverATransport_handsTheUncompressedBytes(Transport transport)
            throws Exception {
        ShuffleConfig config = MemoryConfig.of(64, SEGMENT_SIZE).with(ShuffleOptions.COMPRESSION_CODEC, "lz4");
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config)) {
            assertOvertakenDataIsTheUnsentTail(shuffle, 2 * UNSENT_AT_LEAST + 1);
        }
    }

    @EveryLayout
    void recoveredDataAndEvents_reachTheirConsumerAheadOfLiveRecords(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertRecoveredAheadOfLiveRecords(shuffle);
        }
    }

    @EveryTransport
    void recoveredDataAndEvents_overATransport_reachTheirConsumerAheadOfLiveRecords(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, MemoryConfig.of(64, SEGMENT_SIZE))) {
            assertRecoveredAheadOfLiveRecords(shuffle);
        }
    }

    /**
     * Emits {@code before} full buffers, sends a priority event with a sink, then emits {@link #RECORDS_AFTER} more
     * records and finishes on another thread while the consumer reads: the sink holds the unsent tail of the data
     * before the event (whole buffers, at least {@link #UNSENT_AT_LEAST}), and the consumer reads the event first and
     * then every record in order, the overtaken ones included.
     */
    private static void assertOvertakenDataIsTheUnsentTail(ShuffleFixture shuffle, int before) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(1);
        ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
        writer.setup();
        InputGate gate = shuffle.createGate("consumer", 0, partition);
        gate.setup();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < before; i++) {
            writer.emitRecord(TestRecords.record(0, i, ONE_BUFFER_RECORD), 0);
            expected.add(TestRecords.recordBytes(0, i, ONE_BUFFER_RECORD));
        }
        byte[] beforeStream = TestRecords.framed(expected);
        RecordingInFlightSink sink = RecordingInFlightSink.recycling();

        writer.broadcastPriorityEvent(text("barrier"), sink);
        BackgroundTask<Void> producer = shuffle.fork("producer", () -> {
            for (int i = before; i < before + RECORDS_AFTER; i++) {
                writer.emitRecord(TestRecords.record(0, i, 100), 0);
            }
            writer.finish();
            return null;
        });
        for (int i = before; i < before + RECORDS_AFTER; i++) {
            expected.add(TestRecords.recordBytes(0, i, 100));
        }

        byte[] overtaken = sink.bytes(0);
        assertTrue(overtaken.length >= UNSENT_AT_LEAST * SEGMENT_SIZE && overtaken.length % SEGMENT_SIZE == 0,
                "whole buffers, at least the ones the consumer could not have taken: " + overtaken.length + " bytes");
        assertArrayEquals(Arrays.copyOfRange(beforeStream, beforeStream.length - overtaken.length,
                beforeStream.length), overtaken, "the unsent tail of the data before the event, in order");
        gate.priorityEventAvailableFuture().get(30, TimeUnit.SECONDS);
        BufferOrEvent first = gate.pollNext().orElseThrow();
        assertTrue(first.isEvent() && first.isPriority(), "the priority event comes first: " + first);
        assertEquals("barrier", StandardCharsets.UTF_8.decode(first.data()).toString());
        first.recycle();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
            assertFalse(next.get().isEvent(), "only data after the event: " + next.get());
            data.writeBytes(TestRecords.bytesOf(next.get().data()));
            next.get().recycle();
        }
        producer.await();
        List<byte[]> read = TestRecords.decodeFramed(data.toByteArray());
        assertEquals(expected.size(), read.size(), "every record, the overtaken ones included");
        for (int i = 0; i < read.size(); i++) {
            assertArrayEquals(expected.get(i), read.get(i), "record " + i);
        }
    }

    /**
     * Subpartition 0 gets recovered record bytes in two pieces cut inside records, then live records; subpartition 1
     * a recovered event, then live records: each consumer reads its recovered elements first, as the continuation of
     * its stream, and only subpartition 1's consumer sees the event.
     */
    private static void assertRecoveredAheadOfLiveRecords(ShuffleFixture shuffle) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(2);
        ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
        writer.setup();
        RecordReader reader0 = shuffle.setUpReader("consumer 0", 0, partition);
        RecordReader reader1 = shuffle.setUpReader("consumer 1", 1, partition);
        List<byte[]> recoveredRecords = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            recoveredRecords.add(TestRecords.recordBytes(0, i, 3000));
        }
        byte[] recovered = TestRecords.framed(recoveredRecords);
        int cut = 5000; // inside the second record

        BackgroundTask<Void> producer = shuffle.fork("producer", () -> {
            writer.emitRecovered(0, ByteBuffer.wrap(recovered, 0, cut), false);
            writer.emitRecovered(0, ByteBuffer.wrap(recovered, cut, recovered.length - cut), false);
            writer.emitRecovered(1, text("recovered"), true);
            for (int i = 5; i < 10; i++) {
                writer.emitRecord(TestRecords.record(0, i, 3000), 0);
            }
            for (int i = 0; i < 3; i++) {
                writer.emitRecord(TestRecords.record(1, i, 10), 1);
            }
            writer.finish();
            return null;
        });

        List<String> expected0 = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected0.add(describe(TestRecords.recordBytes(0, i, 3000)));
        }
        assertEquals(expected0, readAll(reader0), "recovered records 0-4, then live records 5-9, no event");
        assertEquals(List.of("event recovered", describe(TestRecords.recordBytes(1, 0, 10)),
                describe(TestRecords.recordBytes(1, 1, 10)), describe(TestRecords.recordBytes(1, 2, 10))),
                readAll(reader1), "the recovered event, then the live records");
        producer.await();
    }

    private static ByteBuffer text(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A record as "record SIZE HASH", so that lists of them compare readably. */
    private static String describe(byte[] record) {
        return "record " + record.length + " " + Arrays.hashCode(record);
    }

    /** Everything the reader hands out until the gate finishes: records described, events as "event PAYLOAD". */
    private static List<String> readAll(RecordReader reader) throws Exception {
        List<String> read = new ArrayList<>();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent()) {
                read.add("event " + StandardCharsets.UTF_8.decode(next.data()));
            } else {
                read.add(describe(TestRecords.bytesOf(next.data())));
            }
        }
        return read;
    }
}
