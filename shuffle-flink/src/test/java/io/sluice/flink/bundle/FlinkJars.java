package io.sluice.flink.bundle;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The jars of Apache Flink and of everything Flink depends on, taken from this test JVM's class path: what a Flink
 * distribution's {@code lib/} holds, with nothing of Sluice (its modules, Netty) in it, so that whatever runs on
 * them plus the bundle jar finds Sluice in the bundle only. Any thread.
 */
public final class FlinkJars {

    private FlinkJars() {
    }

    /** @return the jars, in class path order */
    public static List<Path> onTheClassPath() {
        // Surefire starts the test JVM with a manifest-only jar; the real class path is in this property.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> jars = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            Path path = Paths.get(entry);
            String name = path.toString().replace(File.separatorChar, '/');
            // Sluice's modules: from the local repository, or as this build's own jars (shuffle-api-<version>.jar).
            boolean sluiceOrNetty = name.contains("/io/sluice/") || name.contains("/io/netty/")
                    || path.getFileName().toString().startsWith("shuffle-");
            if (Files.isRegularFile(path) && name.endsWith(".jar") && !sluiceOrNetty && !name.endsWith("-tests.jar")) {
                jars.add(path);
            }
        }
        if (jars.stream().noneMatch(jar -> jar.getFileName().toString().startsWith("flink-runtime-"))) {
            throw new IllegalStateException("no flink-runtime jar on the class path: " + classPath);
        }
        return jars;
    }
}
