package io.sluice.bench.jmh;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DeliveryCounterTest {

    @Test
    void awaitMore_returnsOnceOtherThreadsHavePublishedTheRecords_countingFromTheCall() throws Exception {
        DeliveryCounter counter = new DeliveryCounter();
        counter.publish(5); // before the wait: not part of "n more"

        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> counter.awaitMore(3_000));
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 3_000; i++) {
                counter.publish(1);
            }
        });

        publishing.get(30, TimeUnit.SECONDS);
        waiting.get(30, TimeUnit.SECONDS);
        assertEquals(3_005, counter.total());
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
