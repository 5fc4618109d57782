package io.sluice.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import io.sluice.netty.transport.ChannelPipelineHook;
import io.sluice.netty.transport.PartitionRequest;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A channel that reads a range of subpartitions of a BLOCKING partition (InputGateDeploymentDescriptor's
 * lastConsumedSubpartitionIndex): each subpartition to its end, in index order, through one channel and one
 * partition request, in-process and over each transport; a failure or release in the middle of the range fails the
 * channel naming the partition and the subpartition; a pipelined partition refuses a range. Every test ends with
 * every segment back (the fixture's close).
 */
@Timeout(120)
class SubpartitionRangeTest {

    private static final int SUBPARTITIONS = 5;
    /** Records per subpartition: ranges cross buffers and regions, and subpartition 2 is empty. */
    private static final int[] RECORDS = {300, 200, 0, 150, 1};

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    /** Counts the partition requests a producer's data server receives. */
    private static final class RequestCounter implements ChannelPipelineHook {
        final AtomicInteger requests = new AtomicInteger();

        @Override
        public void serverChannelInitialized(Channel channel) {
            channel.pipeline().addAfter("decoder", "count-requests", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof PartitionRequest) {
                        requests.incrementAndGet();
                    }
                    ctx.fireChannelRead(msg);
                }
            });
        }
    }

    /** A producer and a consumer environment: one in-process environment, or two over a transport. */
    private final class Pair {
        final ShuffleEnvironment producer;
        final ShuffleEnvironment consumer;
        final RequestCounter requests = new RequestCounter();
        final boolean remote;

        Pair(String link) throws IOException {
            ShuffleConfig config = EnvironmentFixture.config(256);
            remote = !"in-process".equals(link);
            if (remote) {
                config = config.with(ShuffleOptions.NETTY_TRANSPORT, link);
                producer = environments.environment(config, false, requests);
                consumer = environments.environment(config, false);
                consumer.start();
            } else {
                producer = environments.environment(config, true);
                consumer = producer;
            }
            producer.start();
        }

        RecordReader reader(int first, int last, ShuffleDescriptor... channels) throws IOException {
            InputGate gate = consumer.createInputGates("range-consumer",
                    List.of(new InputGateDeploymentDescriptor(first, last, List.of(channels)))).get(0);
            gate.setup();
            return new RecordReader(gate);
        }

        /** A finished BLOCKING partition of the producer, {@link #RECORDS} records in each subpartition. */
        EnvironmentFixture.BlockingWriter writtenPartition() throws IOException {
            EnvironmentFixture.BlockingWriter blocking = environments.blockingWriter(producer, SUBPARTITIONS);
            ResultPartitionWriter writer = blocking.writer();
            writer.setup();
            for (int subpartition = 0; subpartition < SUBPARTITIONS; subpartition++) {
                for (int i = 0; i < RECORDS[subpartition]; i++) {
                    writer.emitRecord(TestRecords.record(subpartition, i, length(i)), subpartition);
                }
            }
            writer.finish();
            writer.close();
            return blocking;
        }
    }

    private static int length(int sequence) {
        return 1 + (sequence * 7919) % 6000;
    }

    /** Reads the next {@code count} records, which must be those of {@code subpartition} from its start, in order. */
    private static void expectSubpartition(RecordReader reader, int subpartition, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            RecordOrEvent record = reader.next();
            assertNotNull(record, "subpartition " + subpartition + " ended after " + i + " of " + count + " records");
            assertArrayEquals(TestRecords.recordBytes(subpartition, i, length(i)), TestRecords.bytesOf(record.data()),
                    "record " + i + " of subpartition " + subpartition);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio", "epoll"})
    void rangesOfOne_several_andAll_readEachSubpartitionToItsEnd_inIndexOrder_withOneRequestEach(String link)
            throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = pair.writtenPartition();
        int[][] ranges = {{3, 3}, {1, 3}, {0, SUBPARTITIONS - 1}};
        for (int[] range : ranges) {
            try (RecordReader reader = pair.reader(range[0], range[1], blocking.descriptor())) {
                for (int subpartition = range[0]; subpartition <= range[1]; subpartition++) {
                    expectSubpartition(reader, subpartition, RECORDS[subpartition]);
                }
                assertNull(reader.next(), "the range [" + range[0] + ", " + range[1] + "] ends once, after its last");
            }
        }
        if (pair.remote) {
            assertEquals(ranges.length, pair.requests.requests.get(), "one partition request per channel and range");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void twoChannels_eachReadTheSameRangeOfTheirPartition(String link) throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter first = pair.writtenPartition();
        EnvironmentFixture.BlockingWriter second = pair.writtenPartition();
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
        try (RecordReader reader = pair.reader(1, 3, first.descriptor(), second.descriptor())) {
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
    @ValueSource(strings = {"in-process", "local", "nio", "epoll"})
    void producerFailingInTheMiddleOfARange_failsTheChannel_namingPartitionAndSubpartition(String link)
            throws Exception {
        Pair pair = new Pair(link);

        ShuffleException failure = failureAfterInterruptingSubpartition1(pair,
                blocking -> blocking.writer().fail(new IOException("the producer's disk failed")));

        assertTrue(failure.getMessage().contains("the producer's disk failed"), failure.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio", "epoll"})
    void partitionReleasedInTheMiddleOfARange_failsTheChannel_namingPartitionAndSubpartition(String link)
            throws Exception {
        Pair pair = new Pair(link);

        failureAfterInterruptingSubpartition1(pair,
                blocking -> pair.producer.releasePartitionsLocally(List.of(blocking.writer().partitionId())));
    }

    /** Ends a partition's life in the middle of a read. */
    private interface Interruption {
        void interrupt(EnvironmentFixture.BlockingWriter blocking) throws IOException;
    }

    /**
     * Reads a range over every subpartition up to the first record of subpartition 1, interrupts, and returns the
     * channel's failure, checked to name the partition and subpartition 1.
     */
    private static ShuffleException failureAfterInterruptingSubpartition1(Pair pair, Interruption interruption)
            throws Exception {
        EnvironmentFixture.BlockingWriter blocking = pair.writtenPartition();
        try (RecordReader reader = pair.reader(0, SUBPARTITIONS - 1, blocking.descriptor())) {
            expectSubpartition(reader, 0, RECORDS[0]);
            // One record of subpartition 1: the channel has moved on to it, on either side of the transport.
            expectSubpartition(reader, 1, 1);

            interruption.interrupt(blocking);

            ShuffleException failure = drainUntilFailure(reader);
            assertNamesPartitionAndSubpartition(failure, blocking.writer().partitionId(), 1);
            return failure;
        }
    }

    /**
     * Reads what had left the producer before a failure (in order, as written) and returns the failure. The channel's
     * credit bounds what is in flight far below the rest of the range, so the range cannot end normally.
     */
    private static ShuffleException drainUntilFailure(RecordReader reader) {
        IOException failure = assertThrows(IOException.class, () -> {
            for (int i = 1; i < RECORDS[1]; i++) {
                RecordOrEvent record = reader.next();
                assertNotNull(record, "the range ended instead of failing");
                assertArrayEquals(TestRecords.recordBytes(1, i, length(i)), TestRecords.bytesOf(record.data()));
            }
            reader.next();
        });
        return assertInstanceOf(ShuffleException.class, failure);
    }

    private static void assertNamesPartitionAndSubpartition(ShuffleException failure, ResultPartitionId partition,
                                                            int subpartition) {
        String message = String.valueOf(failure.getMessage());
        assertTrue(message.contains(partition.toString()), "names the partition: " + message);
        assertTrue(message.contains("subpartition " + subpartition), "names the subpartition: " + message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "local", "nio", "epoll"})
    void consumerClosingInTheMiddleOfARange_givesEverythingBack_andThePartitionStaysReadable(String link)
            throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = pair.writtenPartition();
        try (RecordReader reader = pair.reader(0, SUBPARTITIONS - 1, blocking.descriptor())) {
            expectSubpartition(reader, 0, RECORDS[0]);
            expectSubpartition(reader, 1, RECORDS[1] / 2);
        }
        try (RecordReader again = pair.reader(1, SUBPARTITIONS - 1, blocking.descriptor())) {
            for (int subpartition = 1; subpartition < SUBPARTITIONS; subpartition++) {
                expectSubpartition(again, subpartition, RECORDS[subpartition]);
            }
            assertNull(again.next());
        }
        // The fixture's close checks that every segment came back.
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void rangeBeyondThePartitionsLastSubpartition_failsTheChannel_withTheSubpartitionCount(String link)
            throws Exception {
        Pair pair = new Pair(link);
        EnvironmentFixture.BlockingWriter blocking = pair.writtenPartition();
        try (RecordReader reader = pair.reader(3, SUBPARTITIONS, blocking.descriptor())) {
            IOException refusal = assertThrows(IOException.class, reader::next);
            assertInstanceOf(ShuffleException.class, refusal);
            assertTrue(refusal.getMessage().contains("partition " + blocking.writer().partitionId() + " has "
                    + SUBPARTITIONS + " subpartitions; subpartition " + SUBPARTITIONS + " does not exist"),
                    refusal.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-process", "nio"})
    void pipelinedPartition_refusesARange_withTheReason(String link) throws Exception {
        Pair pair = new Pair(link);
        ResultPartitionId id = ResultPartitionId.random();
        ResultPartitionWriter writer = environments.writer(pair.producer, id, SUBPARTITIONS);
        writer.setup();
        ShuffleDescriptor descriptor = pair.remote
                ? new NettyShuffleDescriptor(id, pair.producer.resourceId(), pair.producer.dataAddress(), 0)
                : environments.descriptor(pair.producer, id, SUBPARTITIONS);
        try (RecordReader reader = pair.reader(0, 1, descriptor)) {
            IOException refusal = assertThrows(IOException.class, reader::next);
            assertInstanceOf(ShuffleException.class, refusal);
            assertTrue(String.valueOf(refusal.getMessage()).contains("only a BLOCKING partition is read as a range"),
                    refusal.getMessage());
            assertTrue(refusal.getMessage().contains(id.toString()), refusal.getMessage());
        }
        writer.fail(new IllegalStateException("test over"));
        writer.close();
    }
}
