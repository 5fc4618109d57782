package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.trace.BufferJourney;
import io.sluice.bench.trace.TraceLinker;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.BufferTrace.Event;
import io.sluice.buffers.BufferTrace.Hop;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trace mode ({@code -Dsluice.trace}): with it, every data buffer of a remote transfer leaves each hop in
 * order, and the linker puts them back together; without it (this test JVM), nothing is recorded at all.
 */
class BufferTraceTest {

    /** The hops every buffer must pass, in the order it passes them. */
    private static final Hop[] IN_ORDER = {Hop.COMMIT, Hop.WRITE, Hop.CLIENT_READ, Hop.ENQUEUE, Hop.TAKE,
            Hop.RECYCLE};

    @Test
    void tracedTransfer_recordsEveryHopOfEveryBuffer_inOrder(@TempDir Path dir) throws Exception {
        Path traceFile = dir.resolve("transfer.trace");
        try (ChildJvm child = ChildJvm.start(TracedTransfer.class, List.of("-Dsluice.trace=65536", "-Xmx256m"), dir,
                traceFile.toString())) {
            child.awaitValue("TRACED", Duration.ofMinutes(1));
            assertEquals(0, child.awaitExit(Duration.ofMinutes(1)), child::toString);
        }
        List<Event> events = new ArrayList<>();
        for (String line : Files.readAllLines(traceFile, StandardCharsets.UTF_8)) {
            events.add(Event.parse(line));
        }
        List<BufferJourney> journeys = TraceLinker.link(events);

        // 20 records of 1,000 bytes plus 4-byte prefixes in 4 KiB segments: 5 buffers, the last one partial.
        int expectedBuffers = (TracedTransfer.RECORDS * (TracedTransfer.RECORD_BYTES + 4) + 4095) / 4096;
        assertEquals(expectedBuffers, journeys.size(), () -> "data buffers written: " + journeys);
        int notified = 0;
        int credited = 0;
        for (int i = 0; i < journeys.size(); i++) {
            BufferJourney journey = journeys.get(i);
            assertEquals(i, journey.sequenceNumber(), () -> "write order: " + journeys);
            assertEquals(journeys.get(0).stream(), journey.stream(), "one channel, one stream");
            long previous = Long.MIN_VALUE;
            for (Hop hop : IN_ORDER) {
                assertTrue(journey.has(hop), () -> hop + " missing from " + journey);
                assertTrue(journey.nanos(hop) >= previous, () -> hop + " out of order in " + journey);
                previous = journey.nanos(hop);
            }
            assertTrue(journey.has(Hop.SOCKET_DONE) && journey.nanos(Hop.SOCKET_DONE) >= journey.nanos(Hop.WRITE),
                    () -> "socket completion after the write: " + journey);
            if (journey.has(Hop.NOTIFY)) {
                notified++;
                assertTrue(journey.nanos(Hop.NOTIFY) >= journey.nanos(Hop.COMMIT)
                        && journey.nanos(Hop.NOTIFY) <= journey.nanos(Hop.WRITE), journey::toString);
            }
            if (journey.has(Hop.CREDIT)) {
                credited++;
                assertTrue(journey.nanos(Hop.CREDIT) >= journey.nanos(Hop.RECYCLE), journey::toString);
            }
            assertTrue(journey.handOffs() >= 2, () -> "producer, server, client and consumer threads: " + journey);
        }
        // The first buffer always wakes the idle server. With one exclusive buffer and no floating ones the producer
        // cannot send the next buffer before the credit of the one before comes back.
        assertTrue(notified >= 1, () -> "no notification traced: " + journeys);
        assertTrue(credited >= journeys.size() - 1, () -> "a buffer's credit missing: " + journeys);
    }

    @Test
    void withoutTheProperty_aTransferRecordsNothing() throws Exception {
        assertFalse(BufferTrace.ENABLED, "this test JVM runs without -Dsluice.trace");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, MemoryConfig.of(64,
                MemoryConfig.SMALL_SEGMENT).with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ZERO))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));
            RecordTraffic.emit(writer, 0, new RecordGenerator(0, 7, RecordSizes.fixed(1000)), 20);
            writer.finish();
            assertEquals(20, consumer.await(Await.EVENTUALLY));
        }
        assertEquals(0, BufferTrace.recorded());
        assertTrue(BufferTrace.snapshot().isEmpty());
    }
}
