package io.sluice.netty.tls;

import io.sluice.api.ConfigOption;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;

/**
 * The {@code shuffle.security.ssl.*} options of an environment with TLS enabled, read and checked for what can be
 * checked without opening the stores (both files named, present and readable). {@link TlsContexts#create} opens them.
 * Immutable; any thread. {@link #toString()} hides the passwords.
 *
 * @param keystore           this environment's key and certificate chain
 * @param keystorePassword   password of the keystore
 * @param keyPassword        password of the private key (the keystore's when the option is empty)
 * @param truststore         the trusted CAs' certificates
 * @param truststorePassword password of the truststore
 * @param provider           the TLS engine
 * @param handshakeTimeout   longest handshake
 */
public record TlsSettings(Path keystore, String keystorePassword, String keyPassword, Path truststore,
                          String truststorePassword, TlsProvider provider, Duration handshakeTimeout) {

    /**
     * Reads the TLS options of a configuration whose values parse.
     *
     * @param problems where a problem is added, one line each, naming the option (and the file)
     * @return the settings, or null when TLS is disabled or a problem was found
     */
    public static TlsSettings read(ShuffleConfig config, List<String> problems) {
        if (!config.get(ShuffleOptions.SSL_ENABLED)) {
            return null;
        }
        int before = problems.size();
        Path keystore = readableFile(config, ShuffleOptions.SSL_KEYSTORE, problems);
        Path truststore = readableFile(config, ShuffleOptions.SSL_TRUSTSTORE, problems);
        if (problems.size() > before) {
            return null;
        }
        String keystorePassword = config.get(ShuffleOptions.SSL_KEYSTORE_PASSWORD);
        String keyPassword = config.get(ShuffleOptions.SSL_KEY_PASSWORD);
        return new TlsSettings(keystore, keystorePassword, keyPassword.isEmpty() ? keystorePassword : keyPassword,
                truststore, config.get(ShuffleOptions.SSL_TRUSTSTORE_PASSWORD),
                TlsProvider.fromOption(config.get(ShuffleOptions.SSL_PROVIDER)),
                config.get(ShuffleOptions.SSL_HANDSHAKE_TIMEOUT));
    }

    private static Path readableFile(ShuffleConfig config, ConfigOption<String> option, List<String> problems) {
        String name = config.get(option);
        if (name.isBlank()) {
            problems.add(option.key() + ": required when " + ShuffleOptions.SSL_ENABLED.key() + " is true; name a "
                    + "PKCS12 or JKS file");
            return null;
        }
        Path file = Paths.get(name);
        if (!Files.isRegularFile(file)) {
            problems.add(option.key() + ": file '" + file.toAbsolutePath() + "' "
                    + (Files.exists(file) ? "is not a regular file" : "does not exist"));
            return null;
        }
        if (!Files.isReadable(file)) {
            problems.add(option.key() + ": file '" + file.toAbsolutePath() + "' cannot be read (permissions)");
            return null;
        }
        return file;
    }

    @Override
    public String toString() {
        return "TlsSettings[keystore=" + keystore + ", truststore=" + truststore + ", provider=" + provider
                + ", handshakeTimeout=" + handshakeTimeout + "]";
    }
}
