package io.sluice.tests.transport;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A producer environment with TLS refuses every peer that cannot prove it belongs: a consumer whose certificate comes
 * from another CA, a consumer without TLS, and a client that connects and never starts a handshake. Each is refused
 * within seconds (the consumers fail with TransportException, the silent client's socket is closed), while a good
 * consumer on the same server reads its whole stream; no segment leaks on any side.
 */
class TlsRefusalTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(128, MemoryConfig.SMALL_SEGMENT)
            .with(ShuffleOptions.SSL_HANDSHAKE_TIMEOUT, Duration.ofSeconds(1));
    /** Generous: refusals take a handshake (or its 1 s timeout); a hang is what this guards against. */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(10);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 3 * MemoryConfig.SMALL_SEGMENT);
    private static final long RECORDS = 1000;
    private static final long SEED = 0x7151L;

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.sluice.tests.support.TlsProviders#everyTcpTransportAndProvider")
    void untrustedPeers_areRefusedWithinSeconds_whileAGoodConsumerReadsEverything(Transport transport, String provider)
            throws Exception {
        ShuffleConfig trusted = TestPkis.cluster().configure(CONFIG, provider);
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, trusted)) {
            // What the refused consumers ask for; they never get to the request.
            RegisteredPartition partition = shuffle.registerPartition(1);
            Endpoints.setUpWriter(shuffle, "producer", partition);
            int port = shuffle.producerEnvironment().dataAddress().getPort();

            try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), port)) {
                ShuffleConfig foreignCa = TestPkis.foreign().configure(transport.configure(CONFIG), provider);
                try (OutsideConsumer stranger = OutsideConsumer.start("foreign-ca-consumer", foreignCa, partition)) {
                    assertInstanceOf(TransportException.class, stranger.awaitReadFailure(REFUSED_WITHIN),
                            "a consumer whose certificate another CA signed");
                }
                try (OutsideConsumer plain = OutsideConsumer.start("plain-consumer", transport.configure(CONFIG),
                        partition)) {
                    assertInstanceOf(TransportException.class, plain.awaitReadFailure(REFUSED_WITHIN),
                            "a consumer without TLS");
                }
                assertClosedByServer(silent);
            }

            Endpoints.streamAndVerify(shuffle, "trusted", SIZES, SEED, RECORDS);
        }
    }

    /** A client that never starts a handshake is closed once the handshake timeout passed. */
    private static void assertClosedByServer(Socket silent) throws IOException {
        silent.setSoTimeout((int) REFUSED_WITHIN.toMillis());
        InputStream in = silent.getInputStream();
        int read;
        try {
            read = in.read();
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the server did not close a connection that never started its TLS handshake "
                    + "within " + REFUSED_WITHIN, e);
        } catch (IOException reset) {
            return;
        }
        assertEquals(-1, read, "the server closed the silent connection (end of stream)");
    }
}
