package io.sluice.netty.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.api.ConfigOption;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.netty.file.FileChannelManager;
import io.sluice.netty.testing.MemoryAssertions;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.BackgroundTask;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Every option of {@link ShuffleOptions} (found by reflection, so a new one cannot be left out) against extreme and
 * random values, one option at a time on top of a small configuration: each value is either refused when the
 * environment is created (or, for the factory class, when the factory is loaded), with a message that names the
 * option, or it works: a producer and a consumer environment start on the in-JVM transport, a blocking and a
 * pipelined partition each deliver a few records (one spanning segments) intact and in order to a gate of one remote
 * channel, and after everything is closed every segment of both environments is back.
 *
 * <p>A timeout option may also fail the run it times, with a message naming it: that is the option doing its job on
 * a loaded machine, not a value that slipped through.
 */
class EveryOptionPropertyTest {

    /** 64 segments of 4 KiB per environment, the in-JVM transport: cheap to start, and its channels are remote. */
    private static final ShuffleConfig BASE = ShuffleConfig.empty()
            .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4096L)
            .with(ShuffleOptions.MEMORY_TOTAL, 64L * 4096)
            .with(ShuffleOptions.NETTY_TRANSPORT, "local");
    /** One record within a segment, one of a hundred bytes, one that spans two 4 KiB segments. */
    private static final int[] RECORD_LENGTHS = {1, 100, 5000};
    /** Hang guard of one run; a healthy one takes milliseconds. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);
    /** Options whose small values may legitimately time a run out. */
    private static final Set<String> TIMEOUTS = Set.of(ShuffleOptions.NETTY_CONNECT_TIMEOUT.key(),
            ShuffleOptions.NETTY_BIND_TIMEOUT.key(), ShuffleOptions.SSL_HANDSHAKE_TIMEOUT.key(),
            ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT.key());
    /** String options that take any text (read only with TLS on): a few texts stand for all. */
    private static final Set<String> FREE_TEXT = Set.of(ShuffleOptions.SSL_KEYSTORE.key(),
            ShuffleOptions.SSL_KEYSTORE_PASSWORD.key(), ShuffleOptions.SSL_KEY_PASSWORD.key(),
            ShuffleOptions.SSL_TRUSTSTORE.key(), ShuffleOptions.SSL_TRUSTSTORE_PASSWORD.key());
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** Where temporary-directory values point: a scratch directory, a file in it, a directory that cannot be made. */
    private static Path scratch;
    private static Path aFile;

    /** One option set to one text. */
    record Setting(ConfigOption<?> option, String text) {
        @Override
        public String toString() {
            return option.key() + "=" + text;
        }
    }

    @BeforeContainer
    static void createScratch() throws IOException {
        scratch = Files.createTempDirectory("sluice-every-option");
        aFile = Files.writeString(scratch.resolve("a-file"), "not a directory");
    }

    @AfterContainer
    static void deleteScratch() {
        FileChannelManager.deleteRecursively(scratch);
    }

    @Example
    void theOptionsTriedHere_areEveryOptionTheLibraryReads_andEachHasValuesOfItsType() {
        assertEquals(new HashSet<>(ShuffleOptions.all()), new HashSet<>(optionsByReflection()));
        for (ConfigOption<?> option : optionsByReflection()) {
            Object defaultValue = option.defaultValue();
            assertTrue(defaultValue instanceof Integer || defaultValue instanceof Long
                    || defaultValue instanceof Duration || defaultValue instanceof Boolean
                    || defaultValue instanceof String, option.key() + " is of a type this test has values for");
        }
    }

    @Property(generation = GenerationMode.EXHAUSTIVE, tries = 2000, shrinking = ShrinkingMode.OFF)
    void extremeValueOfAnyOption_isRefusedNamingIt_orWorks(@ForAll("extremeSettings") Setting setting)
            throws Exception {
        refusedNamingTheOptionOrWorks(setting);
    }

    @Property(tries = 200, shrinking = ShrinkingMode.OFF)
    void randomValueOfAnyOption_isRefusedNamingIt_orWorks(@ForAll("randomSettings") Setting setting)
            throws Exception {
        refusedNamingTheOptionOrWorks(setting);
    }

    @Provide
    Arbitrary<Setting> extremeSettings() {
        List<Setting> settings = new ArrayList<>();
        for (ConfigOption<?> option : optionsByReflection()) {
            for (String text : extremeTexts(option)) {
                settings.add(new Setting(option, text));
            }
        }
        return Arbitraries.of(settings);
    }

    @Provide
    Arbitrary<Setting> randomSettings() {
        return Arbitraries.of(optionsByReflection())
                .flatMap(option -> randomTexts(option).map(text -> new Setting(option, text)));
    }

    private static List<ConfigOption<?>> optionsByReflection() {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field field : ShuffleOptions.class.getFields()) {
            if (field.getType() == ConfigOption.class && Modifier.isStatic(field.getModifiers())) {
                try {
                    options.add((ConfigOption<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return options;
    }

    // ---- values ------------------------------------------------------------------------------------------------

    private static List<String> extremeTexts(ConfigOption<?> option) {
        Object defaultValue = option.defaultValue();
        if (option == ShuffleOptions.TMP_DIRS) {
            return List.of("", " , ", scratch.resolve("dir").toString(),
                    scratch.resolve("one") + "," + scratch.resolve("two"), aFile.toString(),
                    aFile.resolve("below-a-file").toString(), "/proc/sluice-cannot-be-made", "a\u0000b");
        }
        // The edges of the ranges (256/257 threads, 65535/65536 ports and buffers), the ends of int and long, and
        // texts that are no number at all.
        if (defaultValue instanceof Integer) {
            return List.of("0", "-1", "1", "256", "257", "65535", "65536", "65537",
                    Integer.toString(Integer.MIN_VALUE), Integer.toString(Integer.MAX_VALUE),
                    Long.toString(Long.MIN_VALUE), Long.toString(Long.MAX_VALUE), "", " ", "abc", "1.5", "0x10",
                    "NaN");
        }
        if (defaultValue instanceof Long) {
            return List.of("0", "-1", "1", "4095", "4k", "40k", "1g", "2g", "1t", "2t",
                    Long.toString(Long.MAX_VALUE), Long.toString(Long.MIN_VALUE), "9223372036854775807k", "NaN",
                    "Infinity", "1e9", "", "1x");
        }
        if (defaultValue instanceof Duration) {
            return List.of("0", "-1", "1ns", "999us", "1ms", "10s", "24h", "1d", "2d", "200000d", "1000000000000d",
                    Long.MAX_VALUE + "ns", Long.MAX_VALUE + "d", "NaN", "Infinity", "-Infinity", "1e308", "1.5s",
                    "PT1S", "", "soon");
        }
        if (defaultValue instanceof Boolean) {
            return List.of("true", "false", "TRUE", "yes", "", "1");
        }
        if (FREE_TEXT.contains(option.key())) {
            return List.of(defaultValue.toString(), " ", "\u0000", "\u00e9t\u00e9", "com.example.NoSuchFile");
        }
        return List.of(defaultValue.toString(), "", " ", "auto", "nio", "epoll", "local", "jdk", "openssl",
                "always", "never", "none", "lz4", "zstd", "java.lang.String", "com.example.NoSuchFactory",
                "\u0000", "\u00e9t\u00e9");
    }

    private static Arbitrary<String> randomTexts(ConfigOption<?> option) {
        Object defaultValue = option.defaultValue();
        if (option == ShuffleOptions.TMP_DIRS) {
            Arbitrary<String> name = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(12);
            return Arbitraries.oneOf(name.map(n -> scratch.resolve(n).toString()),
                    name.list().ofMinSize(1).ofMaxSize(3).map(names -> {
                        List<String> dirs = new ArrayList<>();
                        for (String n : names) {
                            dirs.add(scratch.resolve(n).toString());
                        }
                        return String.join(",", dirs);
                    }));
        }
        if (defaultValue instanceof Integer) {
            return Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.integers().map(String::valueOf)),
                    Tuple.of(3, Arbitraries.integers().between(-10, 70_000).map(String::valueOf)),
                    Tuple.of(1, Arbitraries.longs().map(String::valueOf)),
                    Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
        }
        if (defaultValue instanceof Long) {
            Arbitrary<String> unit = Arbitraries.of("", "b", "k", "kb", "m", "mb", "g", "gb", "t", "tb");
            return Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.longs().greaterOrEqual(0).flatMap(n -> unit.map(u -> n + u))),
                    Tuple.of(3, Arbitraries.longs().between(0, 1L << 20).flatMap(n -> unit.map(u -> n + u))),
                    Tuple.of(1, Arbitraries.longs().map(String::valueOf)),
                    Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
        }
        if (defaultValue instanceof Duration) {
            Arbitrary<String> unit = Arbitraries.of("", "ns", "us", "ms", "s", "sec", "min", "h", "d");
            return Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.longs().greaterOrEqual(0).flatMap(n -> unit.map(u -> n + u))),
                    Tuple.of(3, Arbitraries.longs().between(0, 100_000).flatMap(n -> unit.map(u -> n + u))),
                    Tuple.of(1, Arbitraries.doubles().map(String::valueOf)),
                    Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
        }
        if (defaultValue instanceof Boolean) {
            return Arbitraries.oneOf(Arbitraries.of("true", "false"), Arbitraries.strings().ofMaxLength(6));
        }
        return Arbitraries.oneOf(Arbitraries.of(extremeTexts(option)), Arbitraries.strings().ofMaxLength(24));
    }

    // ---- the property ------------------------------------------------------------------------------------------

    private static void refusedNamingTheOptionOrWorks(Setting setting) throws Exception {
        ShuffleConfig config = BASE.with(setting.option().key(), setting.text());
        // The consumer listens on a port of its own: a configured port is the producer's.
        ShuffleConfig consumerConfig = setting.option() == ShuffleOptions.NETTY_PORT ? BASE : config;
        List<ShuffleEnvironment> environments = new ArrayList<>();
        ShuffleServiceFactory factory;
        ShuffleEnvironment producer;
        ShuffleEnvironment consumer;
        try {
            factory = ShuffleServiceLoader.load(config);
            // The consumer first, so that it is closed first: its connections then never write to a closed producer.
            consumer = create(factory, consumerConfig, "consumer", environments);
            producer = create(factory, config, "producer", environments);
        } catch (IllegalArgumentException | ShuffleException refused) {
            closeAll(environments);
            assertNamesTheOption(setting, refused);
            return;
        }
        try {
            BackgroundTask<Void> run = BackgroundTask.start("shuffle-with-" + setting.option().key(),
                    () -> shuffleAFewRecords(factory, config, producer, consumer));
            try {
                run.await(RUN_TIMEOUT);
            } catch (IOException | RuntimeException failure) {
                // Only a timeout that times the run out may end it, and it must say so.
                if (!TIMEOUTS.contains(setting.option().key())) {
                    throw new AssertionError(setting + " passed validation and then failed: " + failure, failure);
                }
                assertNamesTheOption(setting, failure);
            }
        } finally {
            closeAll(environments);
        }
        for (ShuffleEnvironment environment : environments) {
            MemoryAssertions.assertAllSegmentsReturned(environment);
        }
    }

    private static ShuffleEnvironment create(ShuffleServiceFactory factory, ShuffleConfig config, String role,
                                             List<ShuffleEnvironment> environments) {
        ShuffleEnvironment environment = factory.createShuffleEnvironment(ShuffleEnvironmentContext.of(config,
                new ResourceId(role + "-" + RUNS.incrementAndGet())));
        environments.add(environment);
        return environment;
    }

    /**
     * Starts both; a blocking partition, then a pipelined one, each read to its end by a gate of one remote channel
     * (what validation guarantees room for) while the other writer holds its memory.
     */
    private static void shuffleAFewRecords(ShuffleServiceFactory factory, ShuffleConfig config,
                                           ShuffleEnvironment producer, ShuffleEnvironment consumer) throws Exception {
        producer.start();
        consumer.start();
        try (ShuffleMaster master = factory.createShuffleMaster(config)) {
            ShuffleDescriptor blocking = register(master, producer, PartitionType.BLOCKING);
            ShuffleDescriptor pipelined = register(master, producer, PartitionType.PIPELINED_BOUNDED);
            ResultPartitionWriter blockingWriter = writer(producer, blocking, PartitionType.BLOCKING);
            ResultPartitionWriter pipelinedWriter = writer(producer, pipelined, PartitionType.PIPELINED_BOUNDED);
            try {
                // A blocking partition is read once finished; a request before that would wait out a backoff.
                blockingWriter.setup();
                pipelinedWriter.setup();
                emitAll(blockingWriter, 0);
                readEveryRecordInOrder(consumer, blocking, 0);
                BackgroundTask<Void> pipelinedProducer = BackgroundTask.start("pipelined-producer",
                        () -> emitAll(pipelinedWriter, 1));
                readEveryRecordInOrder(consumer, pipelined, 1);
                pipelinedProducer.await(RUN_TIMEOUT);
            } finally {
                blockingWriter.close();
                pipelinedWriter.close();
            }
        }
    }

    private static ShuffleDescriptor register(ShuffleMaster master, ShuffleEnvironment producer, PartitionType type) {
        return master.registerPartitionWithProducer(new PartitionDescriptor(ResultPartitionId.random(), type, 1, 0),
                new ProducerDescriptor(producer.resourceId(), producer.dataAddress())).join();
    }

    private static ResultPartitionWriter writer(ShuffleEnvironment producer, ShuffleDescriptor descriptor,
                                                PartitionType type) {
        return producer.createResultPartitionWriters("producer",
                List.of(new ResultPartitionDeploymentDescriptor(descriptor, type, 1))).get(0);
    }

    private static void emitAll(ResultPartitionWriter writer, int stream) throws IOException {
        for (int i = 0; i < RECORD_LENGTHS.length; i++) {
            writer.emitRecord(TestRecords.record(stream, i, RECORD_LENGTHS[i]), 0);
        }
        writer.finish();
    }

    /** A gate over {@code partition} reads every record of {@code stream}, in order and intact, then its end. */
    private static void readEveryRecordInOrder(ShuffleEnvironment consumer, ShuffleDescriptor partition, int stream)
            throws Exception {
        InputGate gate = consumer.createInputGates("consumer-" + stream,
                List.of(new InputGateDeploymentDescriptor(0, List.of(partition)))).get(0);
        try (RecordReader reader = new RecordReader(gate)) {
            gate.setup();
            int next = 0;
            RecordOrEvent element;
            while ((element = reader.next()) != null) {
                if (element.isEvent()) {
                    continue;
                }
                assertTrue(next < RECORD_LENGTHS.length, "more records than written in stream " + stream);
                assertArrayEquals(TestRecords.recordBytes(stream, next, RECORD_LENGTHS[next]),
                        TestRecords.bytesOf(element.data()), "record " + next + " of stream " + stream);
                next++;
            }
            assertEquals(RECORD_LENGTHS.length, next, "records of stream " + stream);
            assertNull(reader.next(), "the end stays the end");
        }
    }

    private static void closeAll(List<ShuffleEnvironment> environments) {
        for (ShuffleEnvironment environment : environments) {
            environment.close();
        }
    }

    /** The failure, or one of its causes, names the option the setting set. */
    private static void assertNamesTheOption(Setting setting, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(setting.option().key())) {
                return;
            }
        }
        fail(setting + " was refused without naming " + setting.option().key() + ": " + failure, failure);
    }
}
