package io.sluice.tests.support;

import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * The TLS providers that can run here ({@code jdk} always, {@code openssl} where netty-tcnative loads), crossed with
 * the TCP transports, for {@code @MethodSource("io.sluice.tests.support.TlsProviders#everyTcpTransportAndProvider")}.
 */
public final class TlsProviders {

    private TlsProviders() {
    }

    /** @return jdk, and openssl when netty-tcnative's BoringSSL loads */
    public static Stream<String> available() {
        return OpenSsl.isAvailable() ? Stream.of("jdk", "openssl") : Stream.of("jdk");
    }

    /** @return (transport, provider) for every available TCP transport and provider */
    public static Stream<Arguments> everyTcpTransportAndProvider() {
        return Transport.availableTcp().flatMap(transport -> available().map(provider -> Arguments.of(transport,
                provider)));
    }
}
