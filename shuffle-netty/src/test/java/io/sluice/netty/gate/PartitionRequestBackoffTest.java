package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The delays between requests for a partition that is not there yet (docs/behaviours.md SIG-8, LIC-2). */
class PartitionRequestBackoffTest {

    private static List<Long> delaysUntilExhausted(PartitionRequestBackoff backoff) {
        List<Long> delays = new ArrayList<>();
        while (backoff.increase()) {
            delays.add(backoff.currentMillis());
        }
        return delays;
    }

    // SIG-8
    @Test
    void delays_startAtTheInitial_double_areCappedAtTheMax_thenCannotIncrease() {
        PartitionRequestBackoff backoff = new PartitionRequestBackoff(Duration.ofMillis(100), Duration.ofMillis(1000));

        assertEquals(List.of(100L, 200L, 400L, 800L, 1000L), delaysUntilExhausted(backoff));
        assertFalse(backoff.increase(), "stays exhausted");
        assertEquals(5, backoff.retries());
    }

    // SIG-8
    @Test
    void maxEqualToInitial_allowsExactlyOneRetry() {
        PartitionRequestBackoff backoff = new PartitionRequestBackoff(Duration.ofMillis(50), Duration.ofMillis(50));

        assertEquals(List.of(50L), delaysUntilExhausted(backoff));
    }

    // SIG-8, LIC-2 (no backoff: fail at once)
    @Test
    void zeroInitialBackoff_neverRetries() {
        PartitionRequestBackoff backoff = new PartitionRequestBackoff(Duration.ZERO, Duration.ofSeconds(10));

        assertFalse(backoff.increase());
        assertEquals(0, backoff.retries());
    }

    @Test
    void maxBelowInitial_isRaisedToTheInitial() {
        PartitionRequestBackoff backoff = new PartitionRequestBackoff(Duration.ofMillis(300), Duration.ofMillis(10));

        assertTrue(backoff.increase());
        assertEquals(300, backoff.currentMillis());
        assertFalse(backoff.increase());
    }

    @Test
    void describe_namesTheBoundsTheOptionsAndTheRetries() {
        PartitionRequestBackoff backoff = new PartitionRequestBackoff(Duration.ofMillis(10), Duration.ofMillis(20));
        delaysUntilExhausted(backoff);

        String description = backoff.describe();

        assertTrue(description.contains("from 10 ms to 20 ms"), description);
        assertTrue(description.contains("shuffle.partition-request.initial-backoff"), description);
        assertTrue(description.contains("shuffle.partition-request.max-backoff"), description);
        assertTrue(description.contains("2 retries"), description);
    }
}
