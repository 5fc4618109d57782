package io.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A negative check fails the first time its condition breaks, and passes only after checking it more than once. */
class AwaitTest {

    @Test
    void holdsThroughout_conditionThatBreaksOnItsThirdCheck_failsThenWithItsDescription() {
        AtomicInteger checks = new AtomicInteger();

        AssertionError error = assertThrows(AssertionError.class,
                () -> Await.holdsThroughout(() -> checks.incrementAndGet() < 3, "nothing arrives"));

        assertEquals("nothing arrives", error.getMessage());
        assertEquals(3, checks.get(), "no check after the one that failed");
    }

    @Test
    void holdsThroughout_conditionThatAlwaysHolds_isCheckedAgainUntilTheWindowEnds() throws Exception {
        AtomicInteger checks = new AtomicInteger();

        Await.holdsThroughout(() -> checks.incrementAndGet() > 0, "always");

        assertTrue(checks.get() > 1, "checked " + checks.get() + " times");
    }
}
