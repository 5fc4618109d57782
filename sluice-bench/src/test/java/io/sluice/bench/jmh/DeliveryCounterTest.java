package io.sluice.bench.jmh;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeliveryCounterTest {

    @Test
    void awaitMore_returnsOnceOtherThreadsHavePublishedTheRecords_countingFromTheCall() throws Exception {
        DeliveryCounter counter = new DeliveryCounter();
        counter.publish(5); // before the wait: not part of "n more"
        AtomicBoolean stop = new AtomicBoolean();
        // Publishes until the wait returns: however the two threads interleave, the records the wait counts from
        // its call arrive, and the publish that reaches its goal must wake it.
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            while (!stop.get()) {
                counter.publish(1);
            }
        });

        try {
            CompletableFuture.runAsync(() -> counter.awaitMore(3_000)).get(30, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
        }
        publishing.get(30, TimeUnit.SECONDS);
        assertTrue(counter.total() >= 3_005, counter.total() + " records delivered");
    }

    @Test
    void fail_endsAWait_withTheCause() {
        DeliveryCounter counter = new DeliveryCounter();
        IllegalArgumentException cause = new IllegalArgumentException("consumer broke");
        CompletableFuture.runAsync(() -> counter.fail(cause));

        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> counter.awaitMore(1));

        assertSame(cause, failure.getCause());
    }
}
