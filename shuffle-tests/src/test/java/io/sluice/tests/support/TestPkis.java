package io.sluice.tests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The certificate authorities of the TLS tests, made once per test JVM with keytool ({@link ThrowawayPki}) in a
 * temporary directory that is deleted when the JVM exits: {@link #cluster()} is the one the environments under test
 * trust (PKCS12 stores), {@link #foreign()} another CA that nobody trusts (JKS stores, which also shows that the store
 * type is detected from the file). Any thread; made under the class lock.
 */
public final class TestPkis {

    private static Path directory; // guarded by TestPkis.class
    private static ThrowawayPki cluster; // guarded by TestPkis.class
    private static ThrowawayPki foreign; // guarded by TestPkis.class

    private TestPkis() {
    }

    /** @return the CA and node stores the tests' environments trust */
    public static synchronized ThrowawayPki cluster() {
        if (cluster == null) {
            cluster = make("cluster", "PKCS12");
        }
        return cluster;
    }

    /** @return a CA nobody under test trusts, with a node certificate of its own */
    public static synchronized ThrowawayPki foreign() {
        if (foreign == null) {
            foreign = make("foreign", "JKS");
        }
        return foreign;
    }

    /** @return the directory the stores are in (for tests that write broken files beside them) */
    public static synchronized Path directory() {
        if (directory == null) {
            try {
                directory = Files.createTempDirectory("sluice-tls-test");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Path toDelete = directory;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(toDelete)));
        }
        return directory;
    }

    private static ThrowawayPki make(String name, String storeType) {
        try {
            return ThrowawayPki.create(directory(), name, storeType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making test certificates", e);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temp directory.
        }
    }
}
