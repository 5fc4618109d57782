package io.sluice.tests.transport;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.RecordFraming;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pending {@code wakeUpFuture()} of the environment's gate and writer is completed directly by
 * the transport event loop that makes them available, with no hop through the notification thread, while the
 * pending {@code availableFuture()} of the same moment is still completed by the notification thread
 * ({@code sluice-notify-*}). Each continuation records the thread it ran on.
 */
class WakeUpFutureThreadTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(24, SEGMENT_SIZE)
            .with(ShuffleOptions.BUFFERS_PER_CHANNEL, 2)
            .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, 2);
    /** A record that fills exactly one buffer with its length field. */
    private static final int RECORD_BYTES = SEGMENT_SIZE - RecordFraming.LENGTH_BYTES;
    /** Far more records than the producer's memory holds: the writer must turn unavailable before. */
    private static final int MAX_RECORDS = 10_000;
    /** A hang guard, far beyond what the test takes. */
    private static final long NO_HANG_SECONDS = 30;

    @EveryTransport
    void gateWakeUpFuture_completesOnTheEventLoopThatDeliveredData_availableFutureOnTheNotificationThread(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            InputGate gate = setUpGate(shuffle, partition);
            assertEquals(Optional.empty(), gate.pollNext(), "nothing was emitted yet");
            CompletableFuture<?> wakeUp = gate.wakeUpFuture();
            CompletableFuture<?> available = gate.availableFuture();
            assertFalse(wakeUp.isDone(), "the gate has nothing: its wake-up future must be pending");
            CompletableFuture<Thread> wokenOn = threadThatRuns(wakeUp);
            CompletableFuture<Thread> availableOn = threadThatRuns(available);

            writer.emitRecord(ByteBuffer.allocate(RECORD_BYTES), 0);
            writer.flushAll();

            assertTransportThread(wokenOn.get(NO_HANG_SECONDS, TimeUnit.SECONDS), "gate's wake-up future");
            assertNotificationThread(availableOn.get(NO_HANG_SECONDS, TimeUnit.SECONDS), "gate's available future");
            BufferOrEvent data = gate.pollNext().orElseThrow();
            assertEquals(SEGMENT_SIZE, data.data().remaining(), "the emitted record, framed");
            data.recycle();
            gate.close();
            writer.close();
        }
    }

    @EveryTransport
    void writerWakeUpFuture_completesOnTheEventLoopThatRecycledABuffer_availableFutureOnTheNotificationThread(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            InputGate gate = setUpGate(shuffle, partition);
            Thread test = Thread.currentThread();
            for (int attempt = 1; ; attempt++) {
                int emitted = 0;
                CompletableFuture<?> wakeUp;
                while ((wakeUp = writer.wakeUpFuture()).isDone()) {
                    assertTrue(emitted < MAX_RECORDS, "the writer stayed available after " + emitted + " records");
                    writer.emitRecord(ByteBuffer.allocate(RECORD_BYTES), 0); // available: one buffer is free
                    writer.flushAll();
                    emitted++;
                }
                CompletableFuture<Thread> wokenOn = threadThatRuns(wakeUp);
                CompletableFuture<Thread> availableOn = threadThatRuns(writer.availableFuture());
                int read = 0;
                while (!wokenOn.isDone() || !availableOn.isDone()) {
                    Optional<BufferOrEvent> next = gate.pollNext();
                    if (next.isPresent()) {
                        next.get().recycle();
                        read++;
                    } else {
                        CompletableFuture.anyOf(gate.wakeUpFuture(), availableOn)
                                .get(NO_HANG_SECONDS, TimeUnit.SECONDS);
                    }
                }
                assertTrue(read <= emitted, "read " + read + " buffers, more than the " + emitted + " emitted");
                // The writer also turns available from sending alone (its buffers go back once written): when that
                // happened before a continuation was added, the continuation ran here and says nothing; again.
                if (wokenOn.get() != test && availableOn.get() != test) {
                    assertTransportThread(wokenOn.get(), "writer's wake-up future");
                    assertNotificationThread(availableOn.get(), "writer's available future");
                    break;
                }
                assertTrue(attempt < 20, "every attempt raced with the writer turning available");
            }
            gate.close();
            writer.close();
        }
    }

    /** @return a set-up gate in the consumers' environment reading subpartition 0 of {@code partition} */
    private static InputGate setUpGate(ShuffleFixture shuffle, RegisteredPartition partition) throws Exception {
        InputGate gate = shuffle.createGate("consumer", 0, partition);
        gate.setup();
        return gate;
    }

    /** @return completes with the thread that runs a continuation of {@code future} */
    private static CompletableFuture<Thread> threadThatRuns(CompletableFuture<?> future) {
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        future.thenRun(() -> thread.complete(Thread.currentThread()));
        return thread;
    }

    /** Netty's event loops run on its FastThreadLocalThreads; the notification thread is a plain one. */
    private static void assertTransportThread(Thread thread, String what) {
        assertFalse(thread.getName().startsWith("sluice-notify"),
                what + " was completed by the notification thread " + thread.getName());
        assertTrue(thread instanceof FastThreadLocalThread,
                what + " was completed by " + thread.getName() + ", not by a transport event loop");
    }

    private static void assertNotificationThread(Thread thread, String what) {
        assertTrue(thread.getName().startsWith("sluice-notify"),
                what + " was completed by " + thread.getName() + ", not by the notification thread");
    }
}
