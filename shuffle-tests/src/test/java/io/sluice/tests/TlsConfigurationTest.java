package io.sluice.tests;

import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.ThrowawayPki;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * With TLS enabled, {@code createShuffleEnvironment} refuses stores it cannot use, and its message names the option
 * to fix (and the file): no store named, a missing file, a file that is no keystore, and each wrong password.
 */
class TlsConfigurationTest {

    private static final ShuffleConfig TLS_ON = ShuffleConfig.empty().with(ShuffleOptions.SSL_ENABLED, true);

    @Test
    void tlsWithoutStores_namesBothStoreOptions() {
        String message = refused(TLS_ON);

        assertTrue(message.contains("shuffle.security.ssl.keystore: required")
                && message.contains("shuffle.security.ssl.truststore: required"), message);
    }

    @Test
    void missingKeystoreFile_namesTheOptionAndTheFile() {
        Path missing = TestPkis.directory().resolve("no-such-keystore.p12");
        String message = refused(TestPkis.cluster().configure(TLS_ON, "jdk")
                .with(ShuffleOptions.SSL_KEYSTORE, missing.toString()));

        assertTrue(message.contains("shuffle.security.ssl.keystore") && message.contains(missing.toString())
                && message.contains("does not exist"), message);
    }

    @Test
    void fileThatIsNoKeystore_namesTheOption() throws Exception {
        Path garbage = Files.writeString(TestPkis.directory().resolve("garbage.p12"), "this is not a keystore");
        String message = refused(TestPkis.cluster().configure(TLS_ON, "jdk")
                .with(ShuffleOptions.SSL_TRUSTSTORE, garbage.toString()));

        assertTrue(message.contains("shuffle.security.ssl.truststore") && message.contains(garbage.toString()),
                message);
    }

    @Test
    void wrongKeystorePassword_namesTheKeystorePasswordOption() {
        String message = refused(TestPkis.cluster().configure(TLS_ON, "jdk")
                .with(ShuffleOptions.SSL_KEYSTORE_PASSWORD, "wrong"));

        assertTrue(message.startsWith("shuffle.security.ssl.keystore-password: wrong password"), message);
    }

    @Test
    void wrongTruststorePassword_namesTheTruststorePasswordOption() {
        String message = refused(TestPkis.cluster().configure(TLS_ON, "jdk")
                .with(ShuffleOptions.SSL_TRUSTSTORE_PASSWORD, "wrong"));

        assertTrue(message.startsWith("shuffle.security.ssl.truststore-password: wrong password"), message);
    }

    @Test
    void wrongKeyPassword_namesTheKeyPasswordOption() {
        String message = refused(TestPkis.cluster().configure(TLS_ON, "jdk")
                .with(ShuffleOptions.SSL_KEY_PASSWORD, "wrong"));

        assertTrue(message.startsWith("shuffle.security.ssl.key-password: wrong password"), message);
    }

    @Test
    void jksStoresOfAnotherCa_areDetectedAndAccepted() throws Exception {
        ThrowawayPki jks = TestPkis.foreign();
        try (ShuffleEnvironment environment = create(jks.configure(TLS_ON, "jdk"))) {
            assertTrue(environment.start() > 0, "started with JKS stores");
        }
    }

    private static String refused(ShuffleConfig config) {
        try (ShuffleEnvironment environment = create(config)) {
            return fail("createShuffleEnvironment accepted " + config + " (" + environment + ")");
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        } catch (Exception e) {
            throw new AssertionError("expected IllegalArgumentException, got " + e, e);
        }
    }

    private static ShuffleEnvironment create(ShuffleConfig config) throws Exception {
        return ShuffleServiceLoader.load(config).createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new ResourceId("tls-config")));
    }
}
