package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TaskGroupTest {

    @Test
    void tasksThatAllSucceed_reportNoFailure() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        TaskGroup group = new TaskGroup(List.of(new CountingTask("a", ran), new CountingTask("b", ran)));

        group.start();

        assertNull(group.await(Duration.ofSeconds(30), () -> "state"));
        assertEquals(2, ran.get());
    }

    @Test
    void firstFailure_winsAndAbortsTheOthers() throws Exception {
        IOException cause = new IOException("producer 1 failed");
        BlockedTask blocked = new BlockedTask("consumer-0");
        TaskGroup group = new TaskGroup(List.of(blocked, new FailingTask(cause)));

        group.start();
        Throwable failure = group.await(Duration.ofSeconds(30), () -> "state");

        assertSame(cause, failure, "the abort's own consequence (the blocked task's failure) is not the reported one");
        assertEquals(1, blocked.aborts.get());
        assertEquals(0, cause.getSuppressed().length, "every task ended within the grace period");
    }

    @Test
    void timeout_failsWithTheStateAndAbortsEveryTask() throws Exception {
        BlockedTask blocked = new BlockedTask("consumer-0");
        TaskGroup group = new TaskGroup(List.of(blocked));

        group.start();
        Throwable failure = group.await(Duration.ofMillis(50), () -> "1.00 GB moved by then");

        assertInstanceOf(TimeoutException.class, failure);
        assertEquals("not finished within 50 ms (--timeout); 1.00 GB moved by then", failure.getMessage());
        assertEquals(1, blocked.aborts.get());
    }

    @Test
    void failureDescription_namesCausesOnceAndTheCommandLineOption() {
        IOException cause = new IOException("required 212 buffers, free 150; raise shuffle.memory.total");
        IllegalStateException failure = new IllegalStateException("setup of producer-0 failed: " + cause.getMessage(), cause);
        failure.addSuppressed(new IllegalStateException("still running: consumer-1"));

        assertEquals("IllegalStateException: setup of producer-0 failed: required 212 buffers, free 150; raise "
                + "shuffle.memory.total (--memory); also: still running: consumer-1", MeasuredRun.describe(failure));
        assertTrue(MeasuredRun.describe(new IllegalStateException("x", new IOException("y"))).endsWith("; caused by IOException: y"));
    }

    /** Counts its run. */
    private record CountingTask(String name, AtomicInteger ran) implements TaskGroup.Task {
        @Override
        public void run() {
            ran.incrementAndGet();
        }

        @Override
        public void abort() {
            throw new AssertionError("nothing failed, nothing to abort");
        }
    }

    /** Fails at once. */
    private record FailingTask(Exception cause) implements TaskGroup.Task {
        @Override
        public String name() {
            return "producer-1";
        }

        @Override
        public void run() throws Exception {
            throw cause;
        }

        @Override
        public void abort() {
            // Already ended.
        }
    }

    /** Blocks until aborted, then fails as a gate closed under a reader would. */
    private static final class BlockedTask implements TaskGroup.Task {
        private final String name;
        private final CountDownLatch aborted = new CountDownLatch(1);
        private final AtomicInteger aborts = new AtomicInteger();

        BlockedTask(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void run() throws Exception {
            aborted.await();
            throw new IOException("gate closed");
        }

        @Override
        public void abort() {
            aborts.incrementAndGet();
            aborted.countDown();
        }
    }
}
