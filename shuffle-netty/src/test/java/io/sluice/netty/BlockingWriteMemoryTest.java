package io.sluice.netty;

import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.EnvironmentFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** shuffle.blocking.write-memory: how much of the network memory a blocking partition fills before a region. */
class BlockingWriteMemoryTest {

    private static final int RECORDS = 2000;
    private static final int RECORD_BYTES = 1000;

    /**
     * The writer's buffers in use peak at its pool's largest size: the write memory in segments, or a pipelined
     * pool's 2 x 2 + 8 = 12 buffers (2 subpartitions, the default credit) when the write memory is smaller.
     */
    @ParameterizedTest(name = "write memory of {0} segments: regions of {1} buffers")
    @CsvSource({"100, 100", "1, 12"})
    void aBlockingPartition_fillsItsWriteMemoryBeforeItWritesARegion_andNeverMore(int writeSegments, int peak)
            throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleConfig config = EnvironmentFixture.config(256)
                    .with(ShuffleOptions.BLOCKING_WRITE_MEMORY, writeSegments * EnvironmentFixture.SEGMENT_SIZE);
            ShuffleEnvironment environment = fixture.localEnvironment(config);
            environment.start();
            EnvironmentFixture.BlockingWriter blocking = fixture.blockingWriter(environment, 2);
            ResultPartitionWriter writer = blocking.writer();
            writer.setup();
            ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
            int mostInUse = 0;
            for (int i = 0; i < RECORDS; i++) {
                writer.emitRecord(record, i % 2);
                mostInUse = Math.max(mostInUse, writer.metrics().outputBuffersInUse());
            }
            assertEquals(peak, mostInUse, "buffers filled before a region was written");
            writer.finish();

            long bytesIn = 0;
            for (int subpartition = 0; subpartition < 2; subpartition++) {
                InputGate gate = fixture.gate(environment, subpartition, blocking.descriptor());
                gate.setup();
                while (!gate.isFinished()) {
                    gate.getNext().ifPresent(element -> element.recycle());
                }
                bytesIn += gate.metrics().bytesIn();
                gate.close();
            }
            assertEquals((long) RECORDS * (4 + RECORD_BYTES), bytesIn, "every framed record read back");
            writer.close();
        }
    }
}
