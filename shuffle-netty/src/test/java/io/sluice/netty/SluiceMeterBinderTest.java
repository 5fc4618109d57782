package io.sluice.netty;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.netty.testing.EnvironmentFixture;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The optional Micrometer binding, checked with a SimpleMeterRegistry after a real shuffle. */
class SluiceMeterBinderTest {

    @Test
    void boundEnvironment_metersCarryTagsAndValues_andGoAwayWithTheirWriterGateAndEnvironment() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(64));
            environment.start();
            String environmentId = environment.resourceId().value();
            // A writer made before the binding is bound too.
            ResultPartitionWriter writer = fixture.setUpWriter(environment, 1);
            SluiceMeterBinder binder = SluiceMeterBinder.bind(environment, registry);
            InputGate gate = fixture.setUpGate(environment, 0, writer);
            assertEquals(2, binder.boundWritersAndGates());

            int records = 100;
            ByteBuffer record = ByteBuffer.wrap("a record of some length".getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < records; i++) {
                writer.emitRecord(record, 0);
            }
            writer.flushAll();
            long bytesRead = 0;
            for (int read = 0; read < records * (4L + record.remaining()); ) {
                BufferOrEvent next = gate.getNext().orElseThrow();
                read += next.data().remaining();
                bytesRead += next.data().remaining();
                next.recycle();
            }
            String partition = writer.partitionId().toString();
            assertEquals(records, writerCounter(registry, "sluice.writer.records.out", partition, environmentId));
            assertEquals(0, writerCounter(registry, "sluice.writer.backpressured.time", partition, environmentId));
            Gauge usage = registry.find("sluice.writer.output.pool.usage").tag("partition", partition).gauge();
            assertNotNull(usage);
            assertTrue(usage.value() >= 0 && usage.value() <= 1, "usage " + usage.value());
            Gauge perSecond = registry.find("sluice.writer.backpressured.time.per.second")
                    .tag("partition", partition).gauge();
            assertEquals(0, perSecond.value(), "never blocked");
            assertEquals("producer-" + partition, meter(registry, "sluice.writer.records.out").getId().getTag("owner"));

            FunctionCounter gateBytes = registry.find("sluice.gate.bytes.in").tag("gate", "consumer-0")
                    .tag("environment", environmentId).functionCounter();
            assertNotNull(gateBytes, "gate meters are tagged with the gate's owner");
            assertEquals(bytesRead, gateBytes.count());
            assertEquals(0, registry.find("sluice.gate.queued.buffers").gauge().value());
            assertEquals(0, registry.find("sluice.gate.exclusive.pool.usage").gauge().value(), "local: none");

            assertEquals(environment.metrics().totalSegments(),
                    registry.find("sluice.memory.segments.total").tag("environment", environmentId).gauge().value());
            assertEquals(environment.metrics().availableSegments(),
                    registry.find("sluice.memory.segments.available").gauge().value());

            writer.finish(); // completes the open buffer: bytesOut counts completed buffers
            assertEquals(records * (4L + record.remaining()),
                    writerCounter(registry, "sluice.writer.bytes.out", partition, environmentId), "framing included");
            assertEquals(gateBytes.count(),
                    writerCounter(registry, "sluice.writer.bytes.out", partition, environmentId));
            // Read to its end, the writer is released: its meters go, the gate's stay until it closes.
            while (!gate.isFinished()) {
                Optional<BufferOrEvent> next = gate.getNext();
                next.ifPresent(BufferOrEvent::recycle);
            }
            writer.close();
            assertNull(registry.find("sluice.writer.records.out").meter(), "released writer: meters removed");
            assertNotNull(registry.find("sluice.gate.bytes.in").meter());
            gate.close();
            assertNull(registry.find("sluice.gate.bytes.in").meter(), "closed gate: meters removed");
            assertEquals(0, binder.boundWritersAndGates());
            assertNotNull(registry.find("sluice.memory.usage").meter());

            environment.close();
            assertEquals(List.of(), registry.getMeters(), "closed environment: every meter removed");
        }
    }

    @Test
    void gatesOfTheSameOwner_getDistinctTags_andClosingTheBindingRemovesEverything() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EnvironmentFixture fixture = new EnvironmentFixture()) {
            ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(64));
            environment.start();
            SluiceMeterBinder binder = SluiceMeterBinder.bind(environment, registry);
            ResultPartitionWriter writer = fixture.setUpWriter(environment, 2);
            InputGate first = fixture.setUpGate(environment, 0, writer);
            InputGate second = fixture.setUpGate(environment, 0, writer);
            assertEquals(List.of("consumer-0", "consumer-0 #2"), registry.find("sluice.gate.buffers.in")
                    .functionCounters().stream().map(c -> c.getId().getTag("gate")).sorted().toList());
            binder.close();
            assertEquals(List.of(), registry.getMeters());
            first.close();
            second.close();
            writer.close();
        }
    }

    @Test
    void bindingSomethingElse_isRefusedWithItsType() {
        ShuffleEnvironment other = java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ShuffleEnvironment.class}, (proxy, method, args) -> null) instanceof ShuffleEnvironment
                e ? e : null;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SluiceMeterBinder.bind(other, new SimpleMeterRegistry()));
        assertTrue(e.getMessage().contains("NettyShuffleServiceFactory"), e.getMessage());
    }

    /** Micrometer is optional: no class of shuffle-netty but the binding's refers to it. */
    @Test
    void onlyTheBindingReferencesMicrometer() throws Exception {
        Path classes = classesDirectory();
        List<String> referencing;
        try (Stream<Path> files = Files.walk(classes)) {
            referencing = files.filter(p -> p.toString().endsWith(".class"))
                    .filter(SluiceMeterBinderTest::mentionsMicrometer)
                    .map(p -> classes.relativize(p).toString())
                    .sorted().toList();
        }
        assertEquals(List.of("io/sluice/netty/SluiceMeterBinder.class"),
                referencing.stream().map(s -> s.replace('\\', '/')).toList());
    }

    /**
     * An environment runs a shuffle and reports its metrics in a class loader that cannot see Micrometer: the
     * library's class path without micrometer-core.
     */
    @Test
    void environmentShufflesAndReportsMetrics_withoutMicrometerOnTheClassPath() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.contains("micrometer")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        try (URLClassLoader withoutMicrometer = new URLClassLoader(urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class,
                    () -> withoutMicrometer.loadClass("io.micrometer.core.instrument.MeterRegistry"));
            Class<?> shuffle = withoutMicrometer.loadClass(ShuffleWithoutMicrometer.class.getName());
            assertEquals(withoutMicrometer, shuffle.getClassLoader(), "loaded apart from this test's loader");
            assertEquals("records 10, writers 1, gates 1", shuffle.getMethod("run").invoke(null));
        }
    }

    /** A local shuffle through the public API; loaded by a class loader without Micrometer. */
    public static final class ShuffleWithoutMicrometer {

        private ShuffleWithoutMicrometer() {
        }

        /** @return what the environment's metrics said while the writer and gate were alive */
        public static String run() throws Exception {
            try (EnvironmentFixture fixture = new EnvironmentFixture()) {
                ShuffleEnvironment environment = fixture.localEnvironment(EnvironmentFixture.config(16));
                environment.start();
                ResultPartitionWriter writer = fixture.setUpWriter(environment, 1);
                InputGate gate = fixture.setUpGate(environment, 0, writer);
                for (int i = 0; i < 10; i++) {
                    writer.emitRecord(ByteBuffer.allocate(8), 0);
                }
                writer.flushAll();
                io.sluice.api.ShuffleMetrics metrics = environment.metrics();
                String figures = "records " + metrics.recordsOut() + ", writers " + metrics.writers().size()
                        + ", gates " + metrics.gates().size();
                gate.close();
                writer.close();
                return figures;
            }
        }
    }

    private static Path classesDirectory() throws URISyntaxException {
        return Path.of(NettyShuffleServiceFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static boolean mentionsMicrometer(Path classFile) {
        try {
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains("io/micrometer");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static double writerCounter(SimpleMeterRegistry registry, String name, String partition,
                                        String environment) {
        FunctionCounter counter = registry.find(name).tag("partition", partition).tag("environment", environment)
                .functionCounter();
        assertNotNull(counter, name);
        return counter.count();
    }

    private static Meter meter(SimpleMeterRegistry registry, String name) {
        Meter meter = registry.find(name).meter();
        assertNotNull(meter, name);
        return meter;
    }
}
