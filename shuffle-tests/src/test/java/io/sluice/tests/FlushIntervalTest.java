package io.sluice.tests;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.time.Duration;

/**
 * A record much smaller than a buffer reaches its consumer without filling the buffer: at once with a zero flush
 * interval, within the interval otherwise, or when the producer flushes. Each test starts the consumer waiting in its
 * gate before the record is emitted, so only a flush can wake it.
 */
class FlushIntervalTest {

    /** Default-sized segments: one small record is far from filling one. */
    private static final ShuffleConfig BASE = MemoryConfig.of(32, 32 << 10);
    /** Longer than any test: data that waits for this interval would never arrive. */
    private static final Duration NEVER = Duration.ofHours(1);
    private static final long SEED = 19;

    @EveryLayout
    void zeroFlushInterval_makesASingleRecordReadable_withoutAnyFlush(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, withInterval(Duration.ZERO))) {
            SingleRecordPipe pipe = SingleRecordPipe.start(shuffle);

            pipe.emitOneRecord();

            pipe.awaitRecordRead(layout, "flush interval 0");
        }
    }

    @EveryLayout
    void fiftyMillisecondFlushInterval_makesASingleRecordReadable_eventually(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, withInterval(Duration.ofMillis(50)))) {
            SingleRecordPipe pipe = SingleRecordPipe.start(shuffle);

            pipe.emitOneRecord();

            pipe.awaitRecordRead(layout, "flush interval 50 ms");
        }
    }

    @EveryLayout
    void explicitFlush_makesASingleRecordReadable_longBeforeTheInterval(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, withInterval(NEVER))) {
            SingleRecordPipe pipe = SingleRecordPipe.start(shuffle);

            pipe.emitOneRecord();
            pipe.writer.flush(0);

            pipe.awaitRecordRead(layout, "flush interval 1 h, flush(0)");
        }
    }

    private static ShuffleConfig withInterval(Duration interval) {
        return BASE.with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, interval);
    }

    /** A writer with one subpartition and a consumer parked in its gate, waiting for one record. */
    private static final class SingleRecordPipe {

        private final ResultPartitionWriter writer;
        private final BackgroundTask<Void> consumer;
        private final RecordGenerator records =
                new RecordGenerator(0, SEED, RecordSizes.fixed(RecordFormat.HEADER_BYTES + 16));
        private long emittedAt;

        private SingleRecordPipe(ResultPartitionWriter writer, BackgroundTask<Void> consumer) {
            this.writer = writer;
            this.consumer = consumer;
        }

        static SingleRecordPipe start(ShuffleFixture shuffle) throws Exception {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Void> consumer = shuffle.fork("consumer", () -> {
                RecordTraffic.read(reader, new RecordVerifier("consumer", new int[] {0}), 1);
                return null;
            });
            consumer.awaitParkedIn("getNext", Await.EVENTUALLY);
            return new SingleRecordPipe(writer, consumer);
        }

        void emitOneRecord() throws Exception {
            emittedAt = System.nanoTime();
            RecordTraffic.emitNext(writer, 0, records);
        }

        void awaitRecordRead(Layout layout, String how) throws Exception {
            consumer.await(Await.EVENTUALLY);
            System.out.printf("%s, %s: the record was read %.1f ms after it was emitted%n", layout, how,
                    (System.nanoTime() - emittedAt) / 1e6);
        }
    }
}
