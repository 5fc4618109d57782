package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;

import java.io.IOException;
import java.util.List;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A channel that reads a range of subpartitions of a BLOCKING partition: each subpartition to its end, in index
 * order, through one channel (one request over the transport), in-process and over each transport; a pipelined
 * partition refuses a range.
 */
@Timeout(120)
class SubpartitionRangeTest {

    private static final int SUBPARTITIONS = 4;
    /** Records per subpartition; the first subpartitions get more, so that ranges cross buffers and regions. */
    private static final int[] RECORDS = {300, 200, 1, 150};

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    /** A producer and a consumer environment: one in-process environment, or two over a transport. */
    private final class Pair {
        final ShuffleEnvironment producer;
        final ShuffleEnvironment consumer;

        Pair(String link) throws IOException {
            ShuffleConfig config = EnvironmentFixture.config(256);
            if ("in-process".equals(link)) {
                producer = environments.environment(config, true);
                consumer = producer;
            } else {
                assumeTrue(!"epoll".equals(link) || Epoll.isAvailable(), "epoll does not load here");
                config = config.with(ShuffleOptions.NETTY_TRANSPORT, link);
                producer = environments.environment(config, false);
                consumer = environments.environment(config, false);
                consumer.start();
            }
            producer.start();
        }

        InputGate gate(int first, int last, ShuffleDescriptor... channels) throws IOException {
            InputGate gate = consumer.createInputGates("range-consumer",
                    List.of(new InputGateDeploymentDescriptor(first, last, List.of(channels)))).get(0);
            gate.setup();
            return gate;
        }
    }

    /** Writes {@link #RECORDS} records of varied sizes into each subpartition, then finishes. */
    private static void writeAll(ResultPartitionWriter writer) throws IOException {
        writer.setup();
        for (int subpartition = 0; subpartition < SUBPARTITIONS; subpartition++) {
            for (int i = 0; i < RECORDS[subpartition]; i++) {
                writer.emitRecord(TestRecords.record(subpartition, i, length(i)), subpartition);
            }
        }
        writer.finish();
        writer.close();
    }

    private static int length(int sequence) {
        return 1 + (sequence * 7919) % 6000;
    }

    /** Reads the next records of subpartition {@code subpartition}, checking each byte and their order. */
    private static void expectSubpartition(RecordReader reader, int subpartition, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            RecordOrEvent record = reader.next();
            assertTrue(record != null, "subpartition " + subpartition + " ended after " + i + " of " + count);
            assertArrayEquals(TestRecords.recordBytes(subpartition, i, length(i)), TestRecords.bytesOf(record.data()),
                    "record " + i + " of subpartition " + subpartition);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio", "epoll"})
    void rangesOfOne_several_andAll_readEachSubpartitionToItsEnd_inIndexOrder(String link) throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(pair.producer, SUBPARTITIONS);
        writeAll(blocking.writer());
        int[][] ranges = {{2, 2}, {1, 3}, {0, SUBPARTITIONS - 1}};
        for (int[] range : ranges) {
            try (RecordReader reader = new RecordReader(pair.gate(range[0], range[1], blocking.descriptor()))) {
                for (int subpartition = range[0]; subpartition <= range[1]; subpartition++) {
                    expectSubpartition(reader, subpartition, RECORDS[subpartition]);
                }
                assertEquals(null, reader.next(), "the range [" + range[0] + ", " + range[1] + "] ends");
            }
        }
        assertTrue(pair.producer.metrics().openConnections() <= 2,
                "one connection per direction at most: " + pair.producer.metrics());
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void twoChannels_eachReadTheirPartitionsRange(String link) throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter first = environments.blockingWriter(pair.producer, SUBPARTITIONS);
        EnvironmentFixture.BlockingWriter second = environments.blockingWriter(pair.producer, SUBPARTITIONS);
        writeAll(first.writer());
        writeAll(second.writer());
        long expectedSum = 0;
        int expectedCount = 0;
        for (int s = 1; s <= 3; s++) {
            for (int i = 0; i < RECORDS[s]; i++) {
                expectedSum += 2 * checksum(TestRecords.recordBytes(s, i, length(i)));
                expectedCount += 2;
            }
        }
        long sum = 0;
        int count = 0;
        try (RecordReader reader = new RecordReader(pair.gate(1, 3, first.descriptor(), second.descriptor()))) {
            for (RecordOrEvent record = reader.next(); record != null; record = reader.next()) {
                sum += checksum(TestRecords.bytesOf(record.data()));
                count++;
            }
        }
        assertEquals(expectedCount, count, "records of subpartitions 1..3 of both partitions");
        assertEquals(expectedSum, sum, "sum of the records' checksums");
    }

    private static long checksum(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio", "local"})
    void partitionReleasedInTheMiddleOfARange_failsTheChannel_afterTheSubpartitionsReadBefore(String link)
            throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(pair.producer, SUBPARTITIONS);
        writeAll(blocking.writer());
        try (RecordReader reader = new RecordReader(pair.gate(0, SUBPARTITIONS - 1, blocking.descriptor()))) {
            expectSubpartition(reader, 0, RECORDS[0]);

            pair.producer.releasePartitionsLocally(List.of(blocking.writer().partitionId()));

            IOException failure = assertThrows(IOException.class, () -> {
                while (reader.next() != null) {
                    // Whatever had left the producer before the release may still arrive.
                }
            });
            assertTrue(failure instanceof ShuffleException, String.valueOf(failure));
            assertTrue(String.valueOf(failure.getMessage()).contains(blocking.writer().partitionId().toString()),
                    "names the partition: " + failure.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void consumerClosingInTheMiddleOfARange_releasesEverything(String link) throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(pair.producer, SUBPARTITIONS);
        writeAll(blocking.writer());
        try (RecordReader reader = new RecordReader(pair.gate(0, SUBPARTITIONS - 1, blocking.descriptor()))) {
            expectSubpartition(reader, 0, RECORDS[0]);
            expectSubpartition(reader, 1, RECORDS[1] / 2);
        }
        // The fixture's close checks that every segment came back.
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void pipelinedPartition_refusesARange_withTheReason(String link) throws Exception {
        Pair pair = new Pair(link);
        ResultPartitionId id = ResultPartitionId.random();
        ResultPartitionWriter writer = environments.writer(pair.producer, id, SUBPARTITIONS);
        writer.setup();
        ShuffleDescriptor descriptor = environments.descriptor(pair.producer, id, SUBPARTITIONS);
        if (pair.producer != pair.consumer) {
            descriptor = new NettyShuffleDescriptor(id, pair.producer.resourceId(), pair.producer.dataAddress(), 0);
        }
        try (RecordReader reader = new RecordReader(pair.gate(0, 1, descriptor))) {
            IOException refusal = assertThrows(IOException.class, reader::next);
            assertTrue(String.valueOf(refusal.getMessage()).contains("only a BLOCKING partition is read as a range"),
                    refusal.getMessage());
        }
        writer.fail(new IllegalStateException("test over"));
        writer.close();
    }
}
