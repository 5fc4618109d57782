package io.sluice.tests.transport;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.RecordFraming;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine that continues from the availability futures ({@code
 * writer.availableFuture().thenRun(this::emitMore)}, {@code gate.availableFuture().thenRun(this::readMore)}) never
 * has its continuation run on a transport event loop (where an {@code emitRecord} that blocks would stop the very
 * loop that recycles the buffers it waits for), and the stream still arrives complete. The memory is small, so the
 * producer has to wait for buffers many times.
 */
class AvailabilityContinuationTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(24, SEGMENT_SIZE)
            .with(ShuffleOptions.BUFFERS_PER_CHANNEL, 2)
            .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, 2);
    private static final int RECORDS = 600;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE);
    private static final long SEED = 0xF00DL;
    /** A hang guard, far beyond what the stream takes. */
    private static final long NO_HANG_SECONDS = 60;

    @EveryTransport
    void producerContinuingFromAvailableFuture_neverRunsOnAnEventLoop_andEveryRecordArrives(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "continuing producer", partition);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            ContinuingProducer producer = new ContinuingProducer(writer);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));

            producer.emitMore();

            producer.done.get(NO_HANG_SECONDS, TimeUnit.SECONDS);
            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY));
            assertTrue(producer.waits.get() > 0, "the producer never had to wait: the test proves nothing");
            assertTrue(producer.eventLoopThreads.isEmpty(),
                    "emitMore ran on transport event loops " + producer.eventLoopThreads);
        }
    }

    @EveryTransport
    void consumerContinuingFromAvailableFuture_neverRunsOnAnEventLoop_andReadsEveryByte(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            InputGate gate = shuffle.createGate("continuing consumer", 0, partition);
            gate.setup();
            AtomicLong framedBytes = new AtomicLong();
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
                for (int i = 0; i < RECORDS; i++) {
                    framedBytes.addAndGet(RecordFraming.LENGTH_BYTES + RecordTraffic.emitNext(writer, 0, records));
                }
                writer.finish();
                return records.nextSequence();
            });
            ContinuingConsumer consumer = new ContinuingConsumer(gate);

            consumer.readMore();

            consumer.done.get(NO_HANG_SECONDS, TimeUnit.SECONDS);
            producer.await(Await.EVENTUALLY);
            assertEquals(framedBytes.get(), consumer.bytes.get(), "every byte arrived");
            assertTrue(consumer.waits.get() > 0, "the consumer never had to wait: the test proves nothing");
            assertTrue(consumer.eventLoopThreads.isEmpty(),
                    "readMore ran on transport event loops " + consumer.eventLoopThreads);
            gate.close();
        }
    }

    /** Netty's event loops run on its FastThreadLocalThreads; the library's notification thread is a plain one. */
    private static void noteEventLoop(Set<String> eventLoopThreads) {
        Thread current = Thread.currentThread();
        if (current instanceof FastThreadLocalThread) {
            eventLoopThreads.add(current.getName());
        }
    }

    /** Emits while the writer is available; otherwise continues from its availability future. */
    private static final class ContinuingProducer {
        private final ResultPartitionWriter writer;
        private final RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private final Set<String> eventLoopThreads = ConcurrentHashMap.newKeySet();
        private final AtomicLong waits = new AtomicLong();
        private int emitted; // one continuation at a time

        ContinuingProducer(ResultPartitionWriter writer) {
            this.writer = writer;
        }

        void emitMore() {
            noteEventLoop(eventLoopThreads);
            try {
                while (emitted < RECORDS) {
                    CompletableFuture<?> available = writer.availableFuture();
                    if (!available.isDone()) {
                        waits.incrementAndGet();
                        available.thenRun(this::emitMore);
                        return;
                    }
                    RecordTraffic.emitNext(writer, 0, records);
                    emitted++;
                }
                writer.finish();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }
    }

    /** Polls while the gate has something; otherwise continues from its availability future. */
    private static final class ContinuingConsumer {
        private final InputGate gate;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private final Set<String> eventLoopThreads = ConcurrentHashMap.newKeySet();
        private final AtomicLong waits = new AtomicLong();
        private final AtomicLong bytes = new AtomicLong();

        ContinuingConsumer(InputGate gate) {
            this.gate = gate;
        }

        void readMore() {
            noteEventLoop(eventLoopThreads);
            try {
                while (true) {
                    Optional<BufferOrEvent> next = gate.pollNext();
                    if (next.isPresent()) {
                        bytes.addAndGet(next.get().data().remaining());
                        next.get().recycle();
                    } else if (gate.isFinished()) {
                        done.complete(null);
                        return;
                    } else {
                        CompletableFuture<?> available = gate.availableFuture();
                        if (!available.isDone()) {
                            waits.incrementAndGet();
                            available.thenRun(this::readMore);
                            return;
                        }
                    }
                }
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }
    }
}
