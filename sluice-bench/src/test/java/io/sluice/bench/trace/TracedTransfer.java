package io.sluice.bench.trace;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.buffers.BufferTrace;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child JVM of {@link TracedTransferTest}: one producer sends {@link #RECORDS} records of
 * {@link #RECORD_BYTES} bytes over loopback TCP (NIO) to one consumer through the public API, with small segments
 * so that they fill several buffers; after the consumer has read and verified them all, the trace goes to the
 * file named by the first argument and the child prints {@code TRACED <events>}.
 *
 * <p>Run with {@code -Dsluice.trace=<entries>}; main thread only.
 */
final class TracedTransfer {

    static final int RECORD_BYTES = 1000;
    static final int RECORDS = 20;

    private TracedTransfer() {
    }

    public static void main(String[] args) throws Exception {
        // One exclusive buffer and no floating ones: the producer runs out of credit after every buffer, so each
        // recycled buffer's credit goes out at once (never deferred to a read that may not come), and the trace
        // must show a credit hop for every buffer but the last, whatever the timing.
        ShuffleConfig config = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofHours(1))
                .with(ShuffleOptions.BUFFERS_PER_CHANNEL, 1)
                .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, 0);
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, config)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));
            RecordTraffic.emit(writer, 0, new RecordGenerator(0, 7, RecordSizes.fixed(RECORD_BYTES)), RECORDS);
            writer.finish();
            long read = consumer.await(Await.EVENTUALLY);
            if (read != RECORDS) {
                throw new AssertionError("the consumer read " + read + " records of " + RECORDS);
            }
        }
        BufferTrace.dump(Path.of(args[0]));
        System.out.println("TRACED " + BufferTrace.snapshot().size());
        System.out.flush();
    }
}
