package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
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
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trace mode ({@code -Dsluice.trace}) off, as in this test JVM: a transfer records nothing at all. The traced
 * transfer, and the linking of its events, is sluice-bench's {@code TracedTransferTest}.
 */
class BufferTraceTest {

    @Test
    void withoutTheProperty_aTransferRecordsNothing() throws Exception {
        assertFalse(BufferTrace.ENABLED, "this test JVM runs without -Dsluice.trace");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, MemoryConfig.of(64,
                MemoryConfig.SMALL_SEGMENT).with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ZERO))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));
            RecordTraffic.emit(writer, 0, new RecordGenerator(0, 7, RecordSizes.fixed(1000)), 20);
            writer.finish();
            assertEquals(20, consumer.await(Await.EVENTUALLY));
        }
        assertEquals(0, BufferTrace.recorded());
        assertTrue(BufferTrace.snapshot().isEmpty());
    }
}
