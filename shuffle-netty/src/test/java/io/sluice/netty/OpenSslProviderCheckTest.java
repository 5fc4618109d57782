package io.sluice.netty;

import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.tls.OpenSslSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code shuffle.security.ssl.provider=openssl} on a class path without netty-tcnative: createShuffleEnvironment
 * fails at once, naming the option and the artifact to add. The class path is stood in for by the factory's
 * OpenSSL check; the stores are never opened, because the provider is checked first.
 */
class OpenSslProviderCheckTest {

    private static final OpenSslSupport WITHOUT_TCNATIVE = new OpenSslSupport() {
        @Override
        public boolean isAvailable() {
            return false;
        }

        @Override
        public Throwable unavailabilityCause() {
            return new ClassNotFoundException("io.netty.internal.tcnative.SSLContext");
        }
    };

    @Test
    void opensslWithoutTcnative_failsCreateShuffleEnvironment_namingTheOptionAndTheArtifact(@TempDir Path dir)
            throws IOException {
        Path keystore = Files.writeString(dir.resolve("keystore.p12"), "not opened");
        Path truststore = Files.writeString(dir.resolve("truststore.p12"), "not opened");
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.SSL_ENABLED, true)
                .with(ShuffleOptions.SSL_KEYSTORE, keystore.toString())
                .with(ShuffleOptions.SSL_TRUSTSTORE, truststore.toString())
                .with(ShuffleOptions.SSL_PROVIDER, "openssl");

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> new NettyShuffleServiceFactory(WITHOUT_TCNATIVE).createShuffleEnvironment(
                        ShuffleEnvironmentContext.of(config, new ResourceId("producer"))));

        assertTrue(error.getMessage().contains("shuffle.security.ssl.provider")
                && error.getMessage().contains("io.netty:netty-tcnative-boringssl-static")
                && error.getMessage().contains("ClassNotFoundException"), error.getMessage());
    }
}
