package io.sluice.tests.transport;

import io.netty.handler.ssl.OpenSsl;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The all-to-all verified shuffle of {@link AllToAllRemoteShuffleTest} with TLS and mutual authentication on every
 * connection, per TCP transport and TLS provider: every record arrives once, in order, intact; byte counts match;
 * no segment and no ByteBuf leaks.
 */
class TlsShuffleTest {

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.sluice.tests.support.TlsProviders#everyTcpTransportAndProvider")
    void fourProducersToFourConsumers_overTls_deliverEveryRecordOnceInOrderAndIntact(Transport transport,
                                                                                     String provider)
            throws Exception {
        AllToAllRemoteShuffleTest.shuffleAllToAll(transport,
                TestPkis.cluster().configure(AllToAllRemoteShuffleTest.CONFIG, provider));
    }

    @Test
    void opensslProvider_isTestedHere_becauseNettyTcnativeIsOnTheTestClassPath() {
        assertTrue(OpenSsl.isAvailable(), "netty-tcnative-boringssl-static should load on this machine: "
                + OpenSsl.unavailabilityCause());
    }
}
