package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShuffleConfigTest {

    @ParameterizedTest(name = "{0} = {1} bytes")
    @CsvSource({
        "4096, 4096",
        "512b, 512",
        "32k, 32768",
        "32kb, 32768",
        "32KB, 32768",
        "32 kb, 32768",
        "64m, 67108864",
        "64MB, 67108864",
        "1g, 1073741824",
        "1Gb, 1073741824",
        "2t, 2199023255552",
        "0, 0",
    })
    void byteSizes_parseWithBinaryUnits_caseInsensitive(String text, long bytes) {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.MEMORY_TOTAL.key(), text);

        assertEquals(bytes, config.get(ShuffleOptions.MEMORY_TOTAL));
    }

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
        "250ms, 250",
        "250, 250",
        "10s, 10000",
        "2min, 120000",
        "1h, 3600000",
        "0, 0",
        "3 S, 3000",
    })
    void durations_parseWithUnits_bareNumberIsMilliseconds(String text, long millis) {
        ShuffleConfig config = ShuffleConfig.empty().with(ShuffleOptions.NETTY_CONNECT_TIMEOUT.key(), text);

        assertEquals(Duration.ofMillis(millis), config.get(ShuffleOptions.NETTY_CONNECT_TIMEOUT));
    }

    @Test
    void unparseableByteSize_failsNamingKeyAndValue() {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.memory.total", "64x");

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> config.get(ShuffleOptions.MEMORY_TOTAL));

        assertEquals("shuffle.memory.total: cannot parse '64x' as byte size; use a whole number of bytes with an "
                + "optional binary unit: 4096, 32k, 32kb, 64m, 1g", failure.getMessage());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "shuffle.memory.total          | 9999999999t | shuffle.memory.total: cannot parse '9999999999t' as byte size;",
        "shuffle.memory.segment-size   | -4k         | shuffle.memory.segment-size: cannot parse '-4k' as byte size;",
        "shuffle.output.flush-interval | soon        | shuffle.output.flush-interval: cannot parse 'soon' as duration;",
        "shuffle.netty.connect-timeout | 5 weeks     | shuffle.netty.connect-timeout: cannot parse '5 weeks' as duration;",
        "shuffle.netty.port            | abc         | shuffle.netty.port: cannot parse 'abc' as int",
        "shuffle.buffers-per-channel   | 2.5         | shuffle.buffers-per-channel: cannot parse '2.5' as int",
    })
    void unparseableValue_failsNamingKeyAndValue(String key, String text, String messageStart) {
        ShuffleConfig config = ShuffleConfig.empty().with(key, text);
        ConfigOption<?> option = ShuffleOptions.all().stream().filter(o -> o.key().equals(key)).findFirst().orElseThrow();

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> config.get(option));

        assertTrue(failure.getMessage().startsWith(messageStart), failure.getMessage());
    }

    @Test
    void absentKeys_readAsTheDocumentedDefaults() {
        ShuffleConfig config = ShuffleConfig.empty();

        assertEquals("io.sluice.netty.NettyShuffleServiceFactory", config.get(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS));
        assertEquals(64L << 20, config.get(ShuffleOptions.MEMORY_TOTAL));
        assertEquals(32L << 10, config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
        assertEquals(2, config.get(ShuffleOptions.BUFFERS_PER_CHANNEL));
        assertEquals(8, config.get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE));
        assertEquals(10, config.get(ShuffleOptions.MAX_BUFFERS_PER_SUBPARTITION));
        assertEquals(Duration.ofMillis(100), config.get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
        assertEquals("auto", config.get(ShuffleOptions.NETTY_TRANSPORT));
        assertEquals(0, config.get(ShuffleOptions.NETTY_PORT));
        assertEquals(0, config.get(ShuffleOptions.NETTY_SERVER_THREADS));
        assertEquals(0, config.get(ShuffleOptions.NETTY_CLIENT_THREADS));
        assertEquals(Duration.ofSeconds(10), config.get(ShuffleOptions.NETTY_CONNECT_TIMEOUT));
        assertEquals(Duration.ofMillis(100), config.get(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF));
        assertEquals(Duration.ofSeconds(10), config.get(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF));
        assertEquals("", config.get(ShuffleOptions.TMP_DIRS));
        assertEquals(32L << 20, config.get(ShuffleOptions.BLOCKING_READ_MEMORY));
        assertEquals("none", config.get(ShuffleOptions.COMPRESSION_CODEC));
    }

    @Test
    void blockingOptions_outOfRange_areReportedNamingTheOption() {
        ShuffleConfig config = ShuffleConfig.empty()
                .with("shuffle.compression.codec", "zip")
                .with("shuffle.blocking.read-memory", "1k");

        List<String> problems = ShuffleConfigValidator.problems(config);

        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("shuffle.compression.codec"), problems.toString());
        List<String> readMemory = ShuffleConfigValidator.problems(ShuffleConfig.empty()
                .with("shuffle.blocking.read-memory", "1k"));
        assertEquals(List.of("shuffle.blocking.read-memory: 1k is less than one segment "
                + "(shuffle.memory.segment-size = 32k); raise shuffle.blocking.read-memory"), readMemory);
    }

    @Test
    void all_listsEveryOptionInTheDocumentedOrder() {
        List<String> keys = ShuffleOptions.all().stream().map(ConfigOption::key).collect(Collectors.toList());

        assertEquals(List.of("shuffle-service-factory.class", "shuffle.memory.total", "shuffle.memory.segment-size",
                "shuffle.buffers-per-channel", "shuffle.floating-buffers-per-gate",
                "shuffle.max-buffers-per-subpartition", "shuffle.output.flush-interval", "shuffle.input.spin-wait",
                "shuffle.input.local-channels",
                "shuffle.netty.transport",
                "shuffle.netty.port", "shuffle.netty.server-threads", "shuffle.netty.client-threads",
                "shuffle.netty.connect-timeout", "shuffle.netty.bind-timeout",
                "shuffle.partition-request.initial-backoff", "shuffle.partition-request.max-backoff",
                "shuffle.security.ssl.enabled",
                "shuffle.security.ssl.keystore", "shuffle.security.ssl.keystore-password",
                "shuffle.security.ssl.key-password", "shuffle.security.ssl.truststore",
                "shuffle.security.ssl.truststore-password", "shuffle.security.ssl.provider",
                "shuffle.security.ssl.handshake-timeout", "shuffle.netty.heartbeat-interval",
                "shuffle.netty.heartbeat-timeout", "shuffle.tmp-dirs",
                "shuffle.blocking.read-memory", "shuffle.blocking.read-memory-timeout", "shuffle.blocking.write-memory",
                "shuffle.blocking.zero-copy",
                "shuffle.blocking.checksums", "shuffle.compression.codec",
                "shuffle.debloat.enabled", "shuffle.debloat.target", "shuffle.debloat.period",
                "shuffle.debloat.min-buffer-size", "shuffle.debloat.starting-buffer-size",
                "shuffle.debloat.threshold-percentage", "shuffle.debloat.samples"),
                keys);
        for (ConfigOption<?> option : ShuffleOptions.all()) {
            assertTrue(option.description().length() > 20, option.key() + " is described");
        }
    }

    @Test
    void booleans_parseTrueAndFalseInAnyCase_andRefuseAnythingElseNamingTheKey() {
        assertEquals(true, ShuffleConfig.empty().with("shuffle.security.ssl.enabled", "TRUE")
                .get(ShuffleOptions.SSL_ENABLED));
        assertEquals(false, ShuffleConfig.empty().with("shuffle.security.ssl.enabled", "False")
                .get(ShuffleOptions.SSL_ENABLED));
        assertEquals(false, ShuffleConfig.empty().get(ShuffleOptions.SSL_ENABLED));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShuffleConfig.empty().with("shuffle.security.ssl.enabled", "yes").get(ShuffleOptions.SSL_ENABLED));
        assertTrue(e.getMessage().contains("shuffle.security.ssl.enabled") && e.getMessage().contains("'yes'"),
                e.getMessage());
    }

    @Test
    void heartbeatTimeout_notLongerThanTheInterval_isRefusedNamingBoth() {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.NETTY_HEARTBEAT_INTERVAL, Duration.ofSeconds(5))
                .with(ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT, Duration.ofSeconds(5));

        List<String> problems = ShuffleConfigValidator.problems(config);

        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("shuffle.netty.heartbeat-timeout")
                && problems.get(0).contains("shuffle.netty.heartbeat-interval"), problems.get(0));
    }

    @Test
    void typedWith_writesTextThatReadsBackToTheSameValue() {
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, 3L << 30)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4097L)
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, Duration.ofSeconds(90))
                .with(ShuffleOptions.NETTY_CONNECT_TIMEOUT, Duration.ofNanos(1500))
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofMillis(1500))
                .with(ShuffleOptions.NETTY_PORT, 8080);

        assertEquals(Map.of("shuffle.memory.total", "3g", "shuffle.memory.segment-size", "4097",
                "shuffle.output.flush-interval", "90s", "shuffle.netty.connect-timeout", "1500ns",
                "shuffle.partition-request.max-backoff", "1500ms", "shuffle.netty.port", "8080"), config.toMap());
        assertEquals(3L << 30, config.get(ShuffleOptions.MEMORY_TOTAL));
        assertEquals(4097L, config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
        assertEquals(Duration.ofSeconds(90), config.get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
        assertEquals(Duration.ofNanos(1500), config.get(ShuffleOptions.NETTY_CONNECT_TIMEOUT));
        assertEquals(Duration.ofMillis(1500), config.get(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF));
        assertEquals(8080, config.get(ShuffleOptions.NETTY_PORT));
    }

    @Test
    void with_returnsANewConfig_andLeavesTheOriginalUnchanged() {
        ShuffleConfig original = ShuffleConfig.fromMap(Map.of("engine.parallelism", "4"));

        ShuffleConfig changed = original.with("shuffle.netty.port", "1234");

        assertEquals(Map.of("engine.parallelism", "4"), original.toMap());
        assertEquals(Map.of("engine.parallelism", "4", "shuffle.netty.port", "1234"), changed.toMap());
        assertNotEquals(original, changed);
    }

    @Test
    void fromMap_copiesTheMap_andAcceptsAnyKey() {
        Map<String, String> source = new HashMap<>();
        source.put("shuffle.memroy.total", "1g");
        ShuffleConfig config = ShuffleConfig.fromMap(source);

        source.put("shuffle.netty.port", "1");

        assertEquals(Map.of("shuffle.memroy.total", "1g"), config.toMap());
        assertEquals(ShuffleConfig.fromMap(Map.of("shuffle.memroy.total", "1g")), config);
        assertThrows(UnsupportedOperationException.class, () -> config.toMap().put("x", "y"));
    }

    @Test
    void environmentContextOf_readsMemoryTotal_andBindsToLoopback() {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.memory.total", "16m");

        ShuffleEnvironmentContext context = ShuffleEnvironmentContext.of(config, new ResourceId("tm-1"));

        assertEquals(16L << 20, context.networkMemoryBytes());
        assertEquals(new ResourceId("tm-1"), context.resourceId());
        assertEquals(false, context.localCommunicationOnly());
        assertTrue(context.bindAddress().isLoopbackAddress());
        assertEquals(config, context.config());
    }
}
