package io.sluice.flink.bundle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PKCS12 keystore holding one self-signed key and certificate, made by the JDK's {@code keytool} for a test:
 * every environment uses it as its keystore and as its truststore (the JDK trusts the certificate of a key entry),
 * so the environments trust each other. Never committed. Any thread.
 */
public final class SelfSignedKeystore {

    /** The store's and the key's password. */
    public static final String PASSWORD = "self-signed";

    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    private SelfSignedKeystore() {
    }

    /** @return a new keystore in {@code directory} */
    public static Path create(Path directory) throws IOException, InterruptedException {
        Path keystore = directory.resolve("self-signed.p12");
        List<String> command = List.of(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-genkeypair", "-alias", "node", "-dname", "CN=localhost",
                "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-storetype", "PKCS12",
                "-ext", "san=dns:localhost,ip:127.0.0.1", "-keystore", keystore.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
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
        return keystore;
    }
}
