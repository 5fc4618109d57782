package io.sluice.tests.chaos;

import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The order a stalled reader imposes: it stops first, the others set up their gates, it goes on after them. */
class ReaderStallTest {

    /** Consumer 1 of 3 stops after record 5 until the other two have read 10 records together. */
    private static final Fault STALL = new Fault(FaultKind.READER_STALL, 1, -1, 5, 10, 0, false);

    @Test
    void theOthersSetUpTheirGates_onlyOnceTheStalledReaderStopped() throws Exception {
        ReaderStall stall = ReaderStall.of(STALL, 3);
        BackgroundTask<Void> other = BackgroundTask.start("consumer 0", () -> stall.beforeGateSetup(0));
        other.awaitParkedIn("beforeGateSetup", Await.EVENTUALLY);

        assertFalse(stall.stopsAt(1, 4));
        assertTrue(stall.stopsAt(1, 5));
        BackgroundTask<Void> stalled = BackgroundTask.start("consumer 1", stall::stop);

        other.await(Await.EVENTUALLY);
        stalled.awaitParkedIn("stop", Await.EVENTUALLY);
        for (int i = 0; i < 9; i++) {
            stall.recordRead(i % 2 == 0 ? 0 : 2);
        }
        stall.recordRead(1); // its own records do not count
        assertTrue(stalled.isParkedIn("stop"), "9 records of the others are not enough");
        stall.recordRead(2);
        stalled.await(Await.EVENTUALLY);
    }

    @Test
    void theStalledReaderGoesOn_whenTheOthersEndedFirst() throws Exception {
        ReaderStall stall = ReaderStall.of(STALL, 3);
        BackgroundTask<Void> stalled = BackgroundTask.start("consumer 1", stall::stop);
        stalled.awaitParkedIn("stop", Await.EVENTUALLY);

        stall.ended(0);
        stall.ended(2);

        stalled.await(Await.EVENTUALLY);
    }

    @Test
    void aStalledReaderThatEndsBeforeItsStop_letsTheOthersStart() throws Exception {
        ReaderStall stall = ReaderStall.of(STALL, 3);
        BackgroundTask<Void> other = BackgroundTask.start("consumer 2", () -> stall.beforeGateSetup(2));
        other.awaitParkedIn("beforeGateSetup", Await.EVENTUALLY);

        stall.ended(1);

        other.await(Await.EVENTUALLY);
    }
}
