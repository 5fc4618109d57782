package io.sluice.tests.compression;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.api.TransportException;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code shuffle.compression.codec=lz4}: data arrives intact whatever it compresses to, pipelined and blocking, on
 * every transport and in-process; the wire carries fewer bytes for compressible data; and two environments that
 * disagree on the codec fail clearly instead of handing out corrupt records.
 */
class CompressionTest {

    private static final int RECORDS = 20_000;
    private static final int RECORD_BYTES = 1000;
    private static final byte[] TEXT = "sluice moves records between tasks; lz4 makes repeated text small. "
            .getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path tmp;

    static Stream<Arguments> typesAndTransports() {
        return Stream.of(PartitionType.PIPELINED_BOUNDED, PartitionType.BLOCKING).flatMap(type ->
                Stream.of(Transport.NIO, Transport.LOCAL).map(transport -> Arguments.of(type, transport)));
    }

    private ShuffleConfig config(String codec) {
        return ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, 4L << 20)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString())
                .with(ShuffleOptions.COMPRESSION_CODEC, codec);
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("typesAndTransports")
    void compressibleRecords_arriveIntact_withFarFewerBytesOnTheWire(PartitionType type, Transport transport)
            throws Exception {
        long payload = (long) RECORDS * RECORD_BYTES;
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config("lz4"))) {
            RegisteredPartition partition = shuffle.registerPartition(type, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> readTextRecords(reader));
            emitTextRecords(writer);
            writer.finish();

            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY), "records read and verified");
            long sent = shuffle.producerEnvironment().metrics().bytesSent();
            long received = shuffle.consumerEnvironment().metrics().bytesReceived();
            assertTrue(sent < payload / 4, "bytesSent " + sent + " for " + payload + " bytes of repetitive records");
            assertEquals(sent, received, "bytes received count the compressed bytes too");
        }
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("typesAndTransports")
    void incompressibleRecords_arriveIntact_andCostNoMoreOnTheWire(PartitionType type, Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config("lz4"))) {
            RegisteredPartition partition = shuffle.registerPartition(type, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            RecordGenerator records = new RecordGenerator(0, 5, RecordSizes.parse(RecordSizes.MIXED));
            long bytes = RecordTraffic.emit(writer, 0, records, 2_000);
            writer.finish();

            assertEquals(2_000L, consumer.await(Await.EVENTUALLY));
            long sent = shuffle.producerEnvironment().metrics().bytesSent();
            long framed = bytes + 4L * 2_000;
            assertTrue(sent <= framed + 64, "bytesSent " + sent + " for " + framed + " framed bytes: an "
                    + "incompressible buffer goes as it is");
        }
    }

    @Test
    void blockingPartitionReadInProcess_decompressesWhatItStored() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, config("lz4"))) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            emitTextRecords(writer);
            writer.finish();
            long stored;
            try (Stream<Path> files = java.nio.file.Files.walk(tmp)) {
                stored = files.filter(p -> p.toString().endsWith(".data")).mapToLong(p -> p.toFile().length()).sum();
            }
            assertTrue(stored < (long) RECORDS * RECORD_BYTES / 4, "data file of " + stored + " bytes");

            assertEquals(RECORDS, readTextRecords(shuffle.setUpReader("consumer", 0, partition)));
        }
    }

    @Test
    void codecMismatch_failsTheConsumerWithAMessageNamingTheOption() throws Exception {
        ShuffleConfig producerConfig = config("lz4").with(ShuffleOptions.NETTY_TRANSPORT, "nio");
        ShuffleConfig consumerConfig = config("none").with(ShuffleOptions.NETTY_TRANSPORT, "nio");
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(producerConfig);
        try (ShuffleMaster master = factory.createShuffleMaster(producerConfig);
             ShuffleEnvironment producer = factory.createShuffleEnvironment(
                     ShuffleEnvironmentContext.of(producerConfig, new ResourceId("producer")));
             ShuffleEnvironment consumer = factory.createShuffleEnvironment(
                     ShuffleEnvironmentContext.of(consumerConfig, new ResourceId("consumer")))) {
            producer.start();
            consumer.start();
            ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED, 1, 0),
                    new ProducerDescriptor(producer.resourceId(), producer.dataAddress())).get();
            ResultPartitionWriter writer = producer.createResultPartitionWriters("producer", List.of(
                    new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, 1))).get(0);
            InputGate gate = consumer.createInputGates("consumer",
                    List.of(new InputGateDeploymentDescriptor(0, List.of(descriptor)))).get(0);
            writer.setup();
            gate.setup();
            emitTextRecords(writer);
            writer.finish();

            TransportException failure;
            try (RecordReader reader = new RecordReader(gate)) {
                failure = assertTimeoutPreemptively(Await.EVENTUALLY,
                        () -> assertThrows(TransportException.class, () -> readTextRecords(reader)));
            }
            assertTrue(failure.getMessage().contains("shuffle.compression.codec"), failure.getMessage());
            writer.close();
        }
    }

    /** Records of RECORD_BYTES: an 8-byte sequence number, then repeated text. */
    private static void emitTextRecords(ResultPartitionWriter writer) throws Exception {
        ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
        for (int i = 0; i < RECORDS; i++) {
            record.clear();
            record.putLong(i);
            while (record.hasRemaining()) {
                record.put(TEXT, 0, Math.min(TEXT.length, record.remaining()));
            }
            record.flip();
            writer.emitRecord(record, 0);
        }
    }

    /** Reads to the end, checking every record's sequence number and text; returns the count. */
    private static long readTextRecords(RecordReader reader) throws Exception {
        long count = 0;
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            ByteBuffer data = next.data();
            assertEquals(RECORD_BYTES, data.remaining(), "size of record " + count);
            assertEquals(count, data.getLong(data.position()), "sequence number");
            for (int i = 8; i < RECORD_BYTES; i++) {
                if (data.get(data.position() + i) != TEXT[(i - 8) % TEXT.length]) {
                    throw new AssertionError("record " + count + " differs at byte " + i);
                }
            }
            count++;
        }
        return count;
    }
}
