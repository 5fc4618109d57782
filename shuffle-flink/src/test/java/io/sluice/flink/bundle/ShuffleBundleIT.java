package io.sluice.flink.bundle;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code shuffle-flink-<version>-bundle.jar}, the one jar for Flink's {@code lib/}: it holds Sluice's classes under
 * their own names and Netty relocated under {@code io.sluice.shaded}, with Netty's native epoll library renamed to
 * match, and nothing else; loaded beside Flink's jars alone (no other Sluice or Netty class reachable), the
 * environments Flink's factory creates from it move records over TCP with native epoll, TLS (JDK provider) and lz4
 * (Flink's lz4-java), and the OpenSSL provider is refused with a message even when netty-tcnative is beside it.
 */
class ShuffleBundleIT {

    private static final String SHADED = "io/sluice/shaded/";
    /**
     * The one class shuffle-flink keeps in a Flink package (see FlinkChannelStandIns), under Flink's own name, with
     * its nested interface.
     */
    private static final String IN_FLINKS_PACKAGE =
            "org/apache/flink/runtime/io/network/partition/consumer/SluiceChannel";
    private static final String EPOLL_LIBRARY = "META-INF/native/libio_sluice_shaded_netty_transport_native_epoll_";

    @TempDir
    Path tmp;

    @BeforeAll
    static void onlyAfterPackage() {
        BundleJar.assumeBuilt();
    }

    @Test
    void bundle_holdsSluiceUnderItsOwnNames_andEveryOtherClassRelocated_withNettysNativeLibraryRenamed()
            throws IOException {
        List<String> foreign = new ArrayList<>();
        List<String> nativeLibraries = new ArrayList<>();
        Map<String, String> services = new HashMap<>();
        boolean factory = false;
        boolean netty = false;
        boolean channel = false;
        try (JarFile bundle = new JarFile(BundleJar.path().toFile())) {
            for (Enumeration<JarEntry> entries = bundle.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                factory |= name.equals("io/sluice/flink/SluiceShuffleServiceFactory.class");
                netty |= name.equals(SHADED + "io/netty/channel/epoll/Epoll.class");
                boolean inFlinksPackage = name.equals(IN_FLINKS_PACKAGE + ".class")
                        || name.startsWith(IN_FLINKS_PACKAGE + "$");
                channel |= name.equals(IN_FLINKS_PACKAGE + ".class");
                if (name.endsWith(".class") && !name.startsWith("io/sluice/") && !inFlinksPackage) {
                    foreign.add(name);
                }
                if (name.startsWith("META-INF/native/") && !entry.isDirectory()) {
                    nativeLibraries.add(name);
                }
                if (name.startsWith("META-INF/services/") && !entry.isDirectory()) {
                    try (InputStream in = bundle.getInputStream(entry)) {
                        services.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
                    }
                }
            }
        }

        assertTrue(factory, "shuffle-flink's classes");
        assertTrue(netty, "Netty, relocated");
        assertTrue(channel, "the channel class in Flink's package, not relocated");
        assertEquals(List.of(), foreign, "classes outside io.sluice (Flink, SLF4J or an unrelocated dependency)");
        assertTrue(nativeLibraries.contains(EPOLL_LIBRARY + "x86_64.so"), nativeLibraries.toString());
        assertTrue(nativeLibraries.stream().allMatch(library -> library.startsWith(EPOLL_LIBRARY)),
                "every native library renamed for the relocated Netty: " + nativeLibraries);
        assertEquals(Map.of("META-INF/services/io.sluice.api.ShuffleServiceFactory",
                "io.sluice.netty.NettyShuffleServiceFactory"), services);
    }

    @Test
    void besideFlinksJarsAlone_environmentsFromFlinksFactory_moveRecordsOverEpollWithTlsAndLz4() throws Exception {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "native epoll is Linux only");
        Path keystore = SelfSignedKeystore.create(tmp);
        Map<String, String> options = new HashMap<>(tls(keystore, "jdk"));
        options.put("sluice.shuffle.netty.transport", "epoll");
        int records = 20_000;

        try (URLClassLoader isolated = isolatedLoader(List.of())) {
            assertThrows(ClassNotFoundException.class, () -> isolated.loadClass("io.netty.channel.Channel"),
                    "no unrelocated Netty reachable");
            // Flink's default codec, LZ4, becomes Sluice's lz4, compressing with the lz4-java of Flink's jars.
            @SuppressWarnings("unchecked")
            Map<String, Long> moved = (Map<String, Long>) callProbe(isolated, "moveRecords",
                    new Class<?>[] {Map.class, Path.class, int.class}, options, tmp, records);

            assertEquals(records, moved.get("count"));
            assertEquals(BundleProbe.expectedCrc(records), moved.get("crc"), "the records, in order");
            assertTrue(moved.get("bytesReceived") > 0 && moved.get("bytesReceived") < moved.get("payloadBytes") / 2,
                    "compressed on the wire: " + moved);
        }
    }

    @Test
    void openSslProvider_isRefusedByTheBundle_namingTheJdkProvider_evenWithNettyTcnativeBeside() throws Exception {
        Path keystore = SelfSignedKeystore.create(tmp);
        try (URLClassLoader isolated = isolatedLoader(tcnativeJars())) {
            assertNotNull(isolated.loadClass("io.netty.internal.tcnative.SSL"), "netty-tcnative is in lib/");

            String failure = (String) callProbe(isolated, "environmentFailure", new Class<?>[] {Map.class, Path.class},
                    tls(keystore, "openssl"), tmp);

            assertNotNull(failure, "the environment refuses the openssl provider");
            assertTrue(failure.contains("shuffle.security.ssl.provider: openssl needs"), failure);
            assertTrue(failure.contains("or use jdk"), failure);
        }
    }

    private static Map<String, String> tls(Path keystore, String provider) {
        return Map.of(
                "sluice.shuffle.security.ssl.enabled", "true",
                "sluice.shuffle.security.ssl.keystore", keystore.toString(),
                "sluice.shuffle.security.ssl.keystore-password", SelfSignedKeystore.PASSWORD,
                "sluice.shuffle.security.ssl.truststore", keystore.toString(),
                "sluice.shuffle.security.ssl.truststore-password", SelfSignedKeystore.PASSWORD,
                "sluice.shuffle.security.ssl.provider", provider,
                "sluice.shuffle.netty.server-threads", "1",
                "sluice.shuffle.netty.client-threads", "1");
    }

    /**
     * The bundle, this module's test classes (for {@link BundleProbe}) and Flink's jars, over the JDK's classes only:
     * no Sluice module and no Netty but the bundle's.
     */
    private static URLClassLoader isolatedLoader(List<Path> extraJars) throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(BundleJar.path().toUri().toURL());
        urls.add(Paths.get(BundleProbe.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .toUri().toURL());
        for (Path jar : FlinkJars.onTheClassPath()) {
            urls.add(jar.toUri().toURL());
        }
        for (Path jar : extraJars) {
            urls.add(jar.toUri().toURL());
        }
        return new URLClassLoader("sluice-bundle", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    /** netty-tcnative's jars, which Maven resolved for this test (not on Flink's class path). */
    private static List<Path> tcnativeJars() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> jars = new ArrayList<>();
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (entry.contains("netty-tcnative")) {
                jars.add(Paths.get(entry));
            }
        }
        assertTrue(!jars.isEmpty(), "netty-tcnative on the test class path");
        return jars;
    }

    /** Calls a static method of {@link BundleProbe} as the isolated loader loads it, with it as context loader. */
    private static Object callProbe(ClassLoader loader, String method, Class<?>[] types, Object... args)
            throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            Class<?> probe = loader.loadClass(BundleProbe.class.getName());
            assertTrue(probe.getClassLoader() == loader, "the probe runs in the isolated loader");
            Method target = probe.getMethod(method, types);
            return target.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
