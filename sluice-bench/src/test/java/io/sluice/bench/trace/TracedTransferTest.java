package io.sluice.bench.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.buffers.BufferTrace.Event;
import io.sluice.buffers.BufferTrace.Hop;
import io.sluice.tests.transport.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace mode ({@code -Dsluice.trace}) with a remote transfer in a child JVM: every data buffer leaves each hop in
 * order, and {@link TraceLinker} puts them back together.
 */
class TracedTransferTest {

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
}
