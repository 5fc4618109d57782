package io.sluice.tests.support;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority made with the JDK's {@code keytool} in a directory of the caller's: a
 * self-signed CA, one node keystore holding a key and a certificate signed by that CA (with the CA in its chain), and
 * a truststore holding only the CA certificate. For tests and benchmarks: nothing is ever committed, and the
 * passwords are fixed. These are the same steps docs/security.md describes for a real deployment.
 *
 * <p>Immutable once made; any thread.
 */
public final class ThrowawayPki {

    /** Password of every store made here. */
    public static final String PASSWORD = "throwaway-pki";

    /** How long one keytool run may take before it counts as stuck. */
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    private final Path keystore;
    private final Path truststore;

    private ThrowawayPki(Path keystore, Path truststore) {
        this.keystore = keystore;
        this.truststore = truststore;
    }

    /**
     * Makes a CA and a node certificate signed by it.
     *
     * @param directory where the files go (created if needed)
     * @param name      the CA's and the files' name, e.g. "cluster-a"
     * @param storeType PKCS12 or JKS, for the node keystore and the truststore
     * @return the node keystore and the truststore
     * @throws IOException when keytool fails; the message carries its output
     */
    public static ThrowawayPki create(Path directory, String name, String storeType)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path ca = directory.resolve(name + "-ca.p12");
        Path caCert = directory.resolve(name + "-ca.pem");
        Path node = directory.resolve(name + "-node." + extension(storeType));
        Path request = directory.resolve(name + "-node.csr");
        Path nodeCert = directory.resolve(name + "-node.pem");
        Path trust = directory.resolve(name + "-truststore." + extension(storeType));
        keytool("-genkeypair", "-alias", "ca", "-dname", "CN=" + name + " CA", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-ext", "bc:c", "-storetype", "PKCS12",
                "-keystore", ca.toString(), "-storepass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD,
                "-file", caCert.toString());
        keytool("-genkeypair", "-alias", "node", "-dname", "CN=" + name + " node", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-storetype", storeType,
                "-keystore", node.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-certreq", "-alias", "node", "-keystore", node.toString(), "-storepass", PASSWORD,
                "-file", request.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD,
                "-infile", request.toString(), "-outfile", nodeCert.toString(), "-validity", "2",
                "-ext", "ku:c=digitalSignature,keyAgreement", "-ext", "eku=serverAuth,clientAuth",
                "-ext", "san=dns:localhost,ip:127.0.0.1");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(),
                "-keystore", node.toString(), "-storepass", PASSWORD);
        keytool("-importcert", "-alias", "node", "-file", nodeCert.toString(), "-keystore", node.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-storetype", storeType,
                "-keystore", trust.toString(), "-storepass", PASSWORD);
        return new ThrowawayPki(node, trust);
    }

    /** @return the node's key and certificate chain */
    public Path keystore() {
        return keystore;
    }

    /** @return the CA certificate */
    public Path truststore() {
        return truststore;
    }

    /**
     * @param config  a configuration
     * @param provider jdk or openssl
     * @return the same, with TLS enabled on this PKI's stores and the provider
     */
    public ShuffleConfig configure(ShuffleConfig config, String provider) {
        return config.with(ShuffleOptions.SSL_ENABLED, true)
                .with(ShuffleOptions.SSL_KEYSTORE, keystore.toString())
                .with(ShuffleOptions.SSL_KEYSTORE_PASSWORD, PASSWORD)
                .with(ShuffleOptions.SSL_TRUSTSTORE, truststore.toString())
                .with(ShuffleOptions.SSL_TRUSTSTORE_PASSWORD, PASSWORD)
                .with(ShuffleOptions.SSL_PROVIDER, provider);
    }

    private static String extension(String storeType) {
        return storeType.equalsIgnoreCase("JKS") ? "jks" : "p12";
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString());
        // A short-lived JVM: skip the optimizing compiler.
        command.add("-J-XX:TieredStopAtLevel=1");
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("keytool did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s: " + command);
        }
        if (process.exitValue() != 0) {
            throw new IOException("keytool failed (exit " + process.exitValue() + "): " + command + "\n"
                    + new String(output, StandardCharsets.UTF_8));
        }
    }
}
