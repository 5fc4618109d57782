package io.sluice.tests.transport;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer and a producer that disagree about TLS fail with a message that says what happened and which option to
 * check on both sides: a consumer with TLS learns that the producer did not answer with TLS (not "failed: null"), a
 * consumer without TLS that the producer closed the connection before it sent anything, which TLS may explain.
 */
class TlsMismatchTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT)
            .with(ShuffleOptions.SSL_HANDSHAKE_TIMEOUT, Duration.ofSeconds(2));
    /** Generous: the refusal takes a handshake attempt; a hang is what this guards against. */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(10);

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.sluice.tests.support.TlsProviders#everyTcpTransportAndProvider")
    void tlsConsumerOfAPlaintextProducer_failsSayingTheProducerDidNotAnswerWithTls(Transport transport,
                                                                                  String provider) throws Exception {
        try (ShuffleFixture plaintext = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = plaintext.registerPartition(1);
            Endpoints.setUpWriter(plaintext, "producer", partition);
            ShuffleConfig withTls = TestPkis.cluster().configure(transport.configure(CONFIG), provider);

            try (OutsideConsumer consumer = OutsideConsumer.start("tls-consumer", withTls, partition)) {
                Throwable failure = consumer.awaitReadFailure(REFUSED_WITHIN);

                String message = assertInstanceOf(TransportException.class, failure).getMessage();
                assertTrue(message.contains("did not answer with TLS"), message);
                assertTrue(message.contains("likely a server without TLS"), message);
                assertTrue(message.contains("shuffle.security.ssl.enabled"), message);
                assertTrue(!message.contains("failed: null"), message);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.sluice.tests.support.TlsProviders#everyTcpTransportAndProvider")
    void plaintextConsumerOfATlsProducer_failsNamingTlsAsAPossibleCause(Transport transport, String provider)
            throws Exception {
        try (ShuffleFixture withTls = ShuffleFixture.start(transport, TestPkis.cluster().configure(CONFIG,
                provider))) {
            RegisteredPartition partition = withTls.registerPartition(1);
            Endpoints.setUpWriter(withTls, "producer", partition);

            try (OutsideConsumer consumer = OutsideConsumer.start("plaintext-consumer", transport.configure(CONFIG),
                    partition)) {
                Throwable failure = consumer.awaitReadFailure(REFUSED_WITHIN);

                String message = assertInstanceOf(TransportException.class, failure).getMessage();
                assertTrue(message.contains("closed before the producer sent anything"), message);
                assertTrue(message.contains("shuffle.security.ssl.enabled must be the same on both sides"), message);
            }
        }
    }
}
