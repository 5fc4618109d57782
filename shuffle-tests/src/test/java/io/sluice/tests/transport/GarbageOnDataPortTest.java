package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.MemoryConfig;

import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.SplitMix64;
import io.sluice.tests.support.StreamDigest;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Bytes that are not Sluice frames, written to a producer environment's data port with a plain socket, make its
 * server close that one connection (with a logged reason); a consumer streaming over another connection to the same
 * server finishes correctly, and the server still accepts new connections. TCP transports only: the local transport
 * has no port a socket can reach.
 */
class GarbageOnDataPortTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    /** How long the server may take to close the garbage connection; a hang guard for the socket read. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE);
    /** The stream that runs while the garbage arrives; the consumer has read part of it by then. */
    private static final int RECORDS = 3000;
    private static final long RECORDS_BEFORE_GARBAGE = 100;
    private static final int RECORDS_AFTERWARDS = 500;
    private static final long SEED = 0x6A4BL;

    /** The frame header of the wire protocol: int frameLength | int magic | byte version | byte messageId. */
    private static final int MAGIC = 0x534C4345;
    private static final byte VERSION = 1;
    private static final int HEADER_BYTES = 10;
    /** Not a message id of the protocol (they are small numbers). */
    private static final byte UNKNOWN_MESSAGE_ID = 127;

    /** What is written to the data port. */
    enum Garbage {
        /** 4 KiB of random bytes: the first four are taken as a length, the next four as the magic. */
        RANDOM_BYTES {
            @Override
            ByteBuffer bytes() {
                SplitMix64 random = new SplitMix64(SEED);
                ByteBuffer bytes = ByteBuffer.allocate(4096);
                while (bytes.hasRemaining()) {
                    bytes.putLong(random.nextLong());
                }
                return bytes.flip();
            }
        },
        /** A well-formed header of a small frame, with another protocol's magic. */
        WRONG_MAGIC {
            @Override
            ByteBuffer bytes() {
                return header(HEADER_BYTES + 16, 0xCAFEBABE, VERSION, (byte) 0).put(new byte[16]).flip();
            }
        },
        /** The right magic, and a frame length of almost 2 GiB: must be refused before any of it is awaited. */
        HUGE_LENGTH {
            @Override
            ByteBuffer bytes() {
                return header(Integer.MAX_VALUE - 8, MAGIC, VERSION, (byte) 0).put(new byte[16]).flip();
            }
        },
        /** A future protocol version. */
        UNKNOWN_VERSION {
            @Override
            ByteBuffer bytes() {
                return header(HEADER_BYTES + 16, MAGIC, (byte) (VERSION + 1), (byte) 0).put(new byte[16]).flip();
            }
        },
        /** A message id no client sends. */
        UNKNOWN_MESSAGE_ID {
            @Override
            ByteBuffer bytes() {
                return header(HEADER_BYTES, MAGIC, VERSION, GarbageOnDataPortTest.UNKNOWN_MESSAGE_ID).flip();
            }
        };

        abstract ByteBuffer bytes();

        private static ByteBuffer header(int frameLength, int magic, byte version, byte messageId) {
            return ByteBuffer.allocate(HEADER_BYTES + 16).putInt(frameLength).putInt(magic).put(version)
                    .put(messageId);
        }
    }

    static Stream<Arguments> tcpTransportsAndGarbage() {
        return Transport.availableTcp().flatMap(transport -> Stream.of(Garbage.values())
                .map(garbage -> Arguments.of(transport, garbage)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("tcpTransportsAndGarbage")
    void garbageOnTheDataPort_closesOnlyThatConnection_whileAConsumerOnAnotherFinishesCorrectly(
            Transport transport, Garbage garbage) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            ShuffleEnvironment producerEnvironment = shuffle.producerEnvironment();
            RegisteredPartition partition = shuffle.registerPartition(1, 0);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            AtomicLong read = new AtomicLong();
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> CountingReads.readToEnd(reader, verifier, new StreamDigest(), read));
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
                RecordTraffic.emit(writer, 0, records, RECORDS);
                writer.finish();
                return records.nextSequence();
            });
            Await.until(() -> read.get() >= RECORDS_BEFORE_GARBAGE, Await.EVENTUALLY,
                    () -> "the consumer is streaming: it read " + read.get() + " records");

            try (Socket socket = new Socket()) {
                socket.connect(producerEnvironment.dataAddress(), (int) CLOSE_TIMEOUT.toMillis());
                Await.until(() -> producerEnvironment.metrics().openConnections() == 2, Await.EVENTUALLY,
                        () -> "the server accepted the garbage connection: " + producerEnvironment.metrics());
                ByteBuffer bytes = garbage.bytes();
                socket.getOutputStream().write(bytes.array(), bytes.position(), bytes.remaining());
                socket.getOutputStream().flush();
                awaitClosedByServer(socket, garbage);
            }
            Await.until(() -> producerEnvironment.metrics().openConnections() == 1, Await.EVENTUALLY,
                    () -> "only the consumer's connection left open: " + producerEnvironment.metrics());

            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, consumer);
            verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY), "records the consumer read");
            readOverANewConnection(shuffle);
        }
    }

    /** The server goes on accepting: a partition read over connection index 1 (a new connection) arrives whole. */
    private static void readOverANewConnection(ShuffleFixture shuffle) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(1, 1);
        ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer afterwards", partition);
        RecordReader reader = Endpoints.setUpReader(shuffle, "consumer afterwards", 0, partition);
        RecordGenerator records = new RecordGenerator(1, SEED, SIZES);
        BackgroundTask<Long> producer = shuffle.fork("producer afterwards", () -> {
            RecordTraffic.emit(writer, 0, records, RECORDS_AFTERWARDS);
            writer.finish();
            return records.nextSequence();
        });
        RecordVerifier verifier = new RecordVerifier("consumer afterwards", new int[] {1});
        assertEquals(RECORDS_AFTERWARDS, RecordTraffic.readToEnd(reader, verifier), "records read afterwards");
        verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
    }

    /**
     * Reads until the server closes the connection: end of stream, or a reset. Whatever the server wrote before
     * closing is skipped.
     *
     * @throws AssertionError when the connection is still open after {@link #CLOSE_TIMEOUT}
     */
    private static void awaitClosedByServer(Socket socket, Garbage garbage) throws IOException {
        socket.setSoTimeout((int) CLOSE_TIMEOUT.toMillis());
        InputStream in = socket.getInputStream();
        byte[] skipped = new byte[1024];
        try {
            while (in.read(skipped) >= 0) {
                // Bytes the server sent before it closed; not part of what is checked.
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open " + CLOSE_TIMEOUT.toMillis()
                    + " ms after receiving " + garbage, e);
        } catch (SocketException e) {
            // Reset by the server: closed as well.
        }
    }
}
