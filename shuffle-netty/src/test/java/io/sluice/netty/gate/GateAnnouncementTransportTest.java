package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An announced blocking event end to end (docs/contract.md section 11), in-process and over each transport: a remote
 * channel announces it ahead of the records before it and moves it ahead of them on request, and a local channel
 * announces nothing (its event stays in place); either way the records before the event are persisted once and
 * those after it never, the consumer gets every record once in order, and the producer sends nothing after the event
 * until its consumer resumes it. Every segment is back after close.
 */
@Timeout(120)
class GateAnnouncementTransportTest {

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void theAnnouncedEventMovesAheadOfTheRecordsBeforeIt_overATransport_andStaysInPlaceInProcess(String path)
            throws Exception {
        boolean remote = !"in-process".equals(path);
        ShuffleEnvironment environment = environments.startedEnvironment(path, EnvironmentFixture.config(256));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        RecordingSink sink = RecordingSink.recyclingAtOnce();

        EnvironmentFixture.emitWholeBuffers(writer, 0, 3);
        Await.until(() -> gate.metrics().queuedBuffers() == 3, "three buffers queued for the consumer");
        gate.startPersisting(TextElements.BARRIER, sink);
        writer.broadcastAnnouncedBlockingEvent(ByteBuffer.wrap("barrier".getBytes(StandardCharsets.UTF_8)),
                (subpartition, outcome) -> { });
        // Behind the event: held by the producer until the consumer resumes.
        EnvironmentFixture.emitWholeBuffers(writer, 3, 2);

        List<Integer> before = new ArrayList<>();
        if (remote) {
            Await.until(() -> gate.priorityEventWakeUpFuture().isDone(), "the announcement reached the consumer");
            BufferOrEvent announcement = gate.getNext().orElseThrow();
            int sequenceNumber = announcement.announcedSequenceNumber();
            try {
                assertTrue(announcement.isAnnouncement() && announcement.isPriority(), "" + announcement);
                assertEquals("barrier", StandardCharsets.UTF_8.decode(announcement.data()).toString());
            } finally {
                announcement.recycle();
            }
            assertTrue(gate.prioritizeAnnounced(0, sequenceNumber));
            assertTrue(gate.priorityEventWakeUpFuture().isDone());
            assertBarrier(gate.getNext().orElseThrow(), true);
            before.addAll(take(gate, 3));
        } else {
            before.addAll(take(gate, 3));
            assertFalse(gate.prioritizeAnnounced(0, 0), "a local channel announces nothing");
            assertBarrier(gate.getNext().orElseThrow(), false);
        }
        assertEquals(List.of(0, 1, 2), before);
        Await.holdsThroughout(() -> gate.pollNext().isEmpty(),
                "the producer sends nothing after the event until it is resumed");

        gate.resumeConsumption(0);
        writer.finish();
        assertEquals(List.of(3, 4), take(gate, 2), "the records after the event, once resumed");
        assertTrue(gate.getNext().isEmpty(), "the end");
        List<Integer> persisted = new ArrayList<>();
        for (RecordingSink.Persisted each : sink.persisted()) {
            persisted.add(recordIn(each.bytes()));
        }
        assertEquals(List.of(0, 1, 2), persisted, "the records before the event, once each; none after it");

        gate.close();
        writer.close();
        // environments.close() (after each test) asserts that every segment is back.
    }

    private static void assertBarrier(BufferOrEvent element, boolean priority) {
        try {
            assertTrue(element.isEvent() && !element.isAnnouncement(), "" + element);
            assertEquals(priority, element.isPriority(), "" + element);
            assertEquals("barrier", StandardCharsets.UTF_8.decode(element.data()).toString());
        } finally {
            element.recycle();
        }
    }

    /** Takes {@code count} data buffers, returning the number of the record each holds. Consumer thread. */
    private static List<Integer> take(InputGate gate, int count) throws Exception {
        List<Integer> taken = new ArrayList<>();
        while (taken.size() < count) {
            BufferOrEvent element = gate.getNext().orElseThrow();
            try {
                assertFalse(element.isEvent(), "data, not " + element);
                taken.add(recordIn(TestRecords.bytesOf(element.data())));
            } finally {
                element.recycle();
            }
        }
        return taken;
    }

    /** The number of the one record a buffer holds ({@link EnvironmentFixture#emitWholeBuffers}), byte for byte. */
    private static int recordIn(byte[] buffer) {
        List<byte[]> records = TestRecords.decodeFramed(buffer);
        assertEquals(1, records.size(), "one record a buffer");
        for (int i = 0; i < 5; i++) {
            if (Arrays.equals(TestRecords.recordBytes(0, i, EnvironmentFixture.ONE_BUFFER_RECORD), records.get(0))) {
                return i;
            }
        }
        throw new AssertionError("a buffer holding none of the records emitted");
    }
}
