package io.sluice.netty;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.partition.sortmerge.BlockingReadScheduler;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * shuffle.blocking.read-memory through the public API: shared fairly by every reader of the environment's blocking
 * partitions, whether its consumer reads or not, and refused at creation when the JVM's direct memory cannot hold
 * it.
 */
@Timeout(120)
class BlockingReadMemoryTest {

    private static final int READ_SEGMENTS = 4;
    private static final int RECORD_BYTES = 4000;
    /** About 2 MB a partition: some 500 segments, far beyond the read memory. */
    private static final int RECORDS = 500;

    @TempDir
    Path tmp;

    /**
     * A join sets up the gate of its probe side, then reads its build side to the end on the same thread. The
     * probe side's reader fills the whole read memory before the build side's gate is set up; the build side still
     * reads every record, then the probe side does.
     */
    @Test
    void aGateThatIsSetUpButNotRead_leavesTheOthersTheirShare_andReadsEverythingLater() throws Exception {
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleConfig config = EnvironmentFixture.config(64)
                    .with(ShuffleOptions.BLOCKING_READ_MEMORY, READ_SEGMENTS * EnvironmentFixture.SEGMENT_SIZE)
                    .with(ShuffleOptions.TMP_DIRS, tmp.toString());
            ShuffleEnvironment environment = fixture.localEnvironment(config);
            BlockingReadScheduler reads = ((NettyShuffleEnvironment) environment).blockingReads();
            EnvironmentFixture.BlockingWriter probe = writeFinished(fixture, environment, 1);
            EnvironmentFixture.BlockingWriter build = writeFinished(fixture, environment, 2);

            InputGate probeGate = fixture.gate(environment, 0, probe.descriptor());
            probeGate.setup();
            Await.until(() -> reads.segmentsInUse() == READ_SEGMENTS, Await.EVENTUALLY,
                    () -> "the probe side's reader fills the read memory: " + reads.segmentsInUse());
            InputGate buildGate = fixture.gate(environment, 0, build.descriptor());
            buildGate.setup();

            try (RecordReader buildSide = new RecordReader(buildGate);
                 RecordReader probeSide = new RecordReader(probeGate)) {
                BackgroundTask<Integer> reading = BackgroundTask.start("build side", () -> readAll(buildSide, 2));
                assertEquals(RECORDS, reading.await(Await.EVENTUALLY), "records of the build side");
                assertEquals(RECORDS, readAll(probeSide, 1), "records of the probe side");
            }
            probe.writer().close();
            build.writer().close();
            Await.until(() -> reads.segmentsInUse() == 0, Await.EVENTUALLY,
                    () -> "read segments in use after the gates closed: " + reads.segmentsInUse());
            environment.close();
            assertEquals(0, reads.allocatedSegments(), "read segments not freed after close");
        }
    }

    /** A read memory larger than the JVM's direct memory limit is refused at creation, naming both numbers. */
    @Test
    void aReadMemoryTheJvmsDirectMemoryCannotHold_isRefusedAtCreation_namingBothNumbers() {
        long limit = maxDirectMemory();
        long readMemory = limit + (1L << 20);
        ShuffleConfig config = EnvironmentFixture.config(64)
                .with(ShuffleOptions.BLOCKING_READ_MEMORY, readMemory)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString());

        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> fixture.localEnvironment(config));

            String message = refused.getMessage();
            assertTrue(message.contains("shuffle.blocking.read-memory"), message);
            assertTrue(message.contains(Long.toString(readMemory)), message);
            assertTrue(message.contains("-XX:MaxDirectMemorySize"), message);
            assertTrue(message.contains(Long.toString(limit)), message);
        }
    }

    /** The JVM's direct memory limit: -XX:MaxDirectMemorySize, or the heap's maximum when it is not set. */
    private static long maxDirectMemory() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long option = Long.parseLong(vm.getVMOption("MaxDirectMemorySize").getValue());
        return option > 0 ? option : Runtime.getRuntime().maxMemory();
    }

    /** A finished blocking partition of one subpartition: {@link #RECORDS} records of stream {@code stream}. */
    private static EnvironmentFixture.BlockingWriter writeFinished(EnvironmentFixture fixture,
                                                                   ShuffleEnvironment environment, int stream)
            throws IOException {
        EnvironmentFixture.BlockingWriter blocking = fixture.blockingWriter(environment, 1);
        ResultPartitionWriter writer = blocking.writer();
        writer.setup();
        for (int i = 0; i < RECORDS; i++) {
            writer.emitRecord(TestRecords.record(stream, i, RECORD_BYTES), 0);
        }
        writer.finish();
        return blocking;
    }

    /** Reads to the end, checking every record of {@code stream} in order; returns how many there were. */
    private static int readAll(RecordReader reader, int stream) throws Exception {
        int records = 0;
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent()) {
                continue;
            }
            assertArrayEquals(TestRecords.recordBytes(stream, records, RECORD_BYTES), TestRecords.bytesOf(next.data()),
                    "record " + records + " of stream " + stream);
            records++;
        }
        return records;
    }
}
