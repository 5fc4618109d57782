package io.sluice.flink.bundle;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the build put {@code shuffle-flink-<version>-bundle.jar}: the tests that use it run after {@code package}
 * (Maven passes the path as the system property {@value #PROPERTY}). Any thread.
 */
public final class BundleJar {

    /** The system property that names the bundle jar. */
    public static final String PROPERTY = "sluice.bundle.jar";

    private BundleJar() {
    }

    /**
     * Skips the calling test outside the integration-test phase (Maven's {@code test} phase, before the bundle is
     * built, also runs a test named with {@code -Dtest}).
     */
    public static void assumeBuilt() {
        Assumptions.assumeTrue(System.getProperty(PROPERTY) != null,
                "the bundle's tests run in the integration-test phase, after package");
    }

    /** @return the bundle jar, which exists */
    public static Path path() {
        String value = System.getProperty(PROPERTY);
        if (value == null) {
            throw new IllegalStateException("system property " + PROPERTY + " is not set: run this test through "
                    + "Maven's integration-test phase (mvn verify), which builds the bundle first");
        }
        Path jar = Paths.get(value);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(PROPERTY + " names " + jar + ", which does not exist: run mvn package");
        }
        return jar;
    }
}
