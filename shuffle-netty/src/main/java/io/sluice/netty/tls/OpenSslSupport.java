package io.sluice.netty.tls;

import io.netty.handler.ssl.OpenSsl;

/**
 * Whether the {@code openssl} TLS provider can run here: netty-tcnative (BoringSSL) on the class path and its native
 * library loaded. An interface so that tests can stand in for a class path without netty-tcnative.
 * Implementations are stateless or immutable; any thread.
 */
public interface OpenSslSupport {

    /** The Maven coordinates an application adds to use {@code openssl} (its version matches Netty's). */
    String ARTIFACT = "io.netty:netty-tcnative-boringssl-static";

    /** The netty-tcnative version Netty 4.2.18.Final is built with; the parent pom pins the same. */
    String TCNATIVE_VERSION = "2.0.84.Final";

    /** @return true when OpenSSL can be used */
    boolean isAvailable();

    /** @return why it cannot be used, or null when it can */
    Throwable unavailabilityCause();

    /** @return Netty's own answer ({@link OpenSsl#isAvailable()}) */
    static OpenSslSupport netty() {
        return new OpenSslSupport() {
            @Override
            public boolean isAvailable() {
                return OpenSsl.isAvailable();
            }

            @Override
            public Throwable unavailabilityCause() {
                return OpenSsl.unavailabilityCause();
            }
        };
    }
}
