package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.sluice.api.GateMetrics;
import io.sluice.api.InputGate;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.BackgroundTask;

import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code shuffle.input.local-channels}: by default a consumer reads a producer of its own environment in-process;
 * with {@code false} it reads it over the transport like any other producer, also in an environment created for
 * local communication only.
 */
@Timeout(60)
class LocalChannelsOptionTest {

    private static final int RECORDS = 3_000;

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    @ParameterizedTest(name = "{0}, local communication only: {1}")
    @CsvSource({"nio, true", "nio, false", "local, true", "local, false", "epoll, true"})
    void withoutLocalChannels_ownProducerIsReadOverTheTransport(String transport, boolean localCommunicationOnly)
            throws Exception {
        assumeTrue(!"epoll".equals(transport) || Epoll.isAvailable(), "epoll does not load here");
        ShuffleConfig config = EnvironmentFixture.config(256)
                .with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.INPUT_LOCAL_CHANNELS, false);
        ShuffleEnvironment environment = environments.environment(config, localCommunicationOnly);
        int port = environment.start();
        assertTrue(port >= 0, "a data port is served even when local only: " + port);

        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        BackgroundTask<Long> producer = produce(writer);
        RecordReader reader = new RecordReader(gate);
        Read read = readAll(reader);
        assertEquals(producer.await(), read.checksum(), "checksum of the records");
        assertEquals(RECORDS, read.records());

        ShuffleMetrics metrics = environment.metrics();
        assertTrue(metrics.bytesReceived() > 0, "bytes received over the transport: " + metrics);
        // Which connections are still listed is not asserted: the client may close its connection as soon as the
        // partition counts as consumed, before this snapshot.
        GateMetrics gateMetrics = metrics.gates().get(0);
        assertEquals(ShuffleOptions.BUFFERS_PER_CHANNEL.defaultValue(), gateMetrics.exclusiveBuffers(),
                "a remote channel's exclusive buffers");
        reader.close();
    }

    @Test
    void byDefault_ownProducerIsReadInProcess_withoutTransport() throws Exception {
        ShuffleEnvironment environment = environments.environment(EnvironmentFixture.config(64)
                .with(ShuffleOptions.NETTY_TRANSPORT, "nio"), false);
        environment.start();

        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        BackgroundTask<Long> producer = produce(writer);
        RecordReader reader = new RecordReader(gate);
        Read read = readAll(reader);
        assertEquals(producer.await(), read.checksum());
        assertEquals(RECORDS, read.records());

        ShuffleMetrics metrics = environment.metrics();
        assertEquals(0, metrics.bytesReceived(), "nothing crosses the transport: " + metrics);
        assertEquals(0, metrics.openConnections(), String.valueOf(metrics));
        assertEquals(0, metrics.gates().get(0).exclusiveBuffers(), "a local channel has no exclusive buffers");
        reader.close();
    }

    @Test
    void byDefault_aLocalOnlyEnvironmentServesNoPort() throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(EnvironmentFixture.config(16));

        assertEquals(-1, environment.start());
    }

    /** Records of varied sizes into the one subpartition; returns the checksum of their bytes. */
    private static BackgroundTask<Long> produce(ResultPartitionWriter writer) {
        return BackgroundTask.start("producer", () -> {
            CRC32 checksum = new CRC32();
            for (int i = 0; i < RECORDS; i++) {
                int length = 1 + (i * 7919) % 9000;
                writer.emitRecord(TestRecords.record(0, i, length), 0);
                if (i % 100 == 0) {
                    writer.flushAll();
                }
                checksum.update(TestRecords.recordBytes(0, i, length));
            }
            writer.finish();
            return checksum.getValue();
        });
    }

    private record Read(int records, long checksum) {
    }

    /** Reads to the end, checking each record in order; leaves the reader (and its gate) open. */
    private static Read readAll(RecordReader reader) throws Exception {
        CRC32 checksum = new CRC32();
        int count = 0;
        for (RecordOrEvent record = reader.next(); record != null; record = reader.next()) {
            byte[] bytes = TestRecords.bytesOf(record.data());
            assertArrayEquals(TestRecords.recordBytes(0, count, 1 + (count * 7919) % 9000), bytes, "record " + count);
            checksum.update(bytes);
            count++;
        }
        assertNull(reader.next());
        return new Read(count, checksum.getValue());
    }
}
