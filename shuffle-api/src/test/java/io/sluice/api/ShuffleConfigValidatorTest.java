package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShuffleConfigValidatorTest {

    @Test
    void defaultsAndForeignKeys_haveNoProblems() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of(
                "engine.parallelism", "4",
                "shuffle-service-factory.class", "com.example.MyFactory",
                "shuffle.memory.total", "128m"));

        assertEquals(List.of(), ShuffleConfigValidator.problems(config));
        ShuffleConfigValidator.validate(config);
    }

    @Test
    void backoffsTooLongForMilliseconds_areReportedNotOverflowed() {
        // Found by ShuffleConfigFuzzTest: printing the initial backoff for this problem went through a count of
        // milliseconds, which overflowed: ArithmeticException out of problems() instead of a problem.
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of(
                "shuffle.partition-request.initial-backoff", "100000000000000h",
                "shuffle.partition-request.max-backoff", "1ms"));

        assertEquals(List.of("shuffle.partition-request.initial-backoff: invalid value '100000000000000h'; must be"
                + " between 1ms and 24h"), ShuffleConfigValidator.problems(config));
    }

    @Test
    void longestDurationsOfEachUnit_printBackToTheSameValue() {
        // Found by ShuffleConfigFuzzTest: 9223372036854775807us printed through a count of nanoseconds (overflow).
        for (String text : List.of("9223372036854775807ns", "9223372036854775807us", "9223372036854775807ms",
                "9223372036854775807s", "153722867280912930min", "2562047788015215h", "106751991167300d")) {
            java.time.Duration value = ShuffleOptions.OUTPUT_FLUSH_INTERVAL.parse(text);
            String printed = ShuffleOptions.OUTPUT_FLUSH_INTERVAL.format(value);
            assertEquals(value, ShuffleOptions.OUTPUT_FLUSH_INTERVAL.parse(printed), text + " printed as " + printed);
        }
    }

    @Test
    void misspelledKey_isReportedWithTheClosestKnownKey() {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.memroy.total", "1g");

        assertEquals(List.of("shuffle.memroy.total: unknown option; did you mean shuffle.memory.total?"),
                ShuffleConfigValidator.problems(config));
    }

    @Test
    void misspelledKeys_eachGetTheirOwnClosestKey() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of("shuffle.netty.prot", "1", "shuffle.buffer-per-channel", "2"));

        assertEquals(List.of(
                "shuffle.buffer-per-channel: unknown option; did you mean shuffle.buffers-per-channel?",
                "shuffle.netty.prot: unknown option; did you mean shuffle.netty.port?"),
                ShuffleConfigValidator.problems(config).stream().sorted().toList());
    }

    @Test
    void unparseableValue_isReported() {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.netty.port", "abc");

        assertEquals(List.of("shuffle.netty.port: cannot parse 'abc' as int"), ShuffleConfigValidator.problems(config));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "shuffle.memory.total                      | 0              | must be between 4k and 1t",
        "shuffle.memory.total                      | 8192g          | must be between 4k and 1t",
        "shuffle.memory.segment-size               | 1k             | must be between 4k and 64m",
        "shuffle.memory.segment-size               | 128m           | must be between 4k and 64m",
        "shuffle.buffers-per-channel               | 0              | must be between 1 and 65536",
        "shuffle.buffers-per-channel               | 65537          | must be between 1 and 65536",
        "shuffle.floating-buffers-per-gate         | -1             | must be between 0 and 65536",
        "shuffle.floating-buffers-per-gate         | 2147483647     | must be between 0 and 65536",
        "shuffle.max-buffers-per-subpartition      | 0              | must be between 1 and 2147483647",
        "shuffle.output.flush-interval             | 200000d        | must be 0 or between 1ms and 24h",
        "shuffle.output.flush-interval             | 500us          | must be 0 or between 1ms and 24h",
        "shuffle.netty.transport                   | kqueue         | must be one of auto, nio, epoll, local",
        "shuffle.netty.port                        | 65536          | must be between 0 and 65535",
        "shuffle.netty.port                        | -1             | must be between 0 and 65535",
        "shuffle.netty.server-threads              | -2             | must be between 0 and {threads}",
        "shuffle.netty.client-threads              | 2147483647     | must be between 0 and {threads}",
        "shuffle.netty.connect-timeout             | 0              | must be between 1ms and 24h",
        "shuffle.netty.connect-timeout             | 999us          | must be between 1ms and 24h",
        "shuffle.netty.bind-timeout                | 1000000000000d | must be between 1ms and 24h",
        "shuffle.partition-request.initial-backoff | 0ms            | must be between 1ms and 24h",
        "shuffle.partition-request.max-backoff     | 0s             | must be between 1ms and 24h",
        "shuffle.partition-request.max-backoff     | 25h            | must be between 1ms and 24h",
        "shuffle.security.ssl.handshake-timeout    | 2d             | must be between 1ms and 24h",
        "shuffle.netty.heartbeat-interval          | 0              | must be between 1ms and 24h",
        "shuffle.netty.heartbeat-timeout           | 200000d        | must be between 1ms and 24h",
        "shuffle.blocking.read-memory              | 2t             | must be between 1 and 1t",
        "shuffle.blocking.write-memory             | 0              | must be between 1 and 1t",
        "shuffle.input.spin-wait                   | 11ms           | must be between 0ms and 10ms",
        "shuffle-service-factory.class             | ' '            | must not be empty",
    })
    void valueOutOfRange_isReportedWithTheValueAsWrittenAndTheRange(String key, String value, String requirement) {
        ShuffleConfig config = ShuffleConfig.empty().with(key, value);

        List<String> problems = ShuffleConfigValidator.problems(config);

        assertEquals(List.of(key + ": invalid value '" + value + "'; "
                + requirement.replace("{threads}", Integer.toString(ShuffleOptions.MAX_EVENT_LOOP_THREADS))),
                problems);
    }

    @Test
    void threadLimit_isAFewHundred_orAMultipleOfTheCores() {
        assertEquals(Math.max(256, 4 * Runtime.getRuntime().availableProcessors()),
                ShuffleOptions.MAX_EVENT_LOOP_THREADS);
    }

    @Test
    void everyOption_statesItsRangeInItsJavadoc() throws Exception {
        String source = Files.readString(Paths.get(System.getProperty("user.dir"),
                "src/main/java/io/sluice/api/ShuffleOptions.java"), StandardCharsets.UTF_8);
        List<String> undocumented = new ArrayList<>();
        for (Field field : ShuffleOptions.class.getFields()) {
            if (field.getType() != ConfigOption.class) {
                continue;
            }
            int declaration = source.indexOf("public static final ConfigOption<");
            while (declaration >= 0 && !source.startsWith(field.getName() + " = ",
                    source.indexOf('>', declaration) + 2)) {
                declaration = source.indexOf("public static final ConfigOption<", declaration + 1);
            }
            assertTrue(declaration >= 0, field.getName() + " is declared in ShuffleOptions.java");
            String javadoc = source.substring(source.lastIndexOf("/**", declaration), declaration);
            if (!javadoc.contains("Range:")) {
                undocumented.add(field.getName());
            }
        }

        assertEquals(List.of(), undocumented, "options whose Javadoc does not state their range");
    }

    @Test
    void valueInRange_isAccepted_atTheEdges() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of(
                "shuffle.memory.segment-size", "4096",
                "shuffle.memory.total", "4096",
                "shuffle.netty.port", "65535",
                "shuffle.floating-buffers-per-gate", "0",
                "shuffle.output.flush-interval", "0",
                "shuffle.netty.transport", "local",
                "shuffle.partition-request.initial-backoff", "10s"));

        assertEquals(List.of(), ShuffleConfigValidator.problems(config));
    }

    @Test
    void memoryLessThanOneSegment_isReportedWithBothOptions() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of("shuffle.memory.total", "16k",
                "shuffle.memory.segment-size", "32k"));

        assertEquals(List.of("shuffle.memory.total: 16k is less than one segment (shuffle.memory.segment-size = 32k); "
                + "raise shuffle.memory.total or lower shuffle.memory.segment-size"),
                ShuffleConfigValidator.problems(config));
    }

    @Test
    void initialBackoffAboveMaxBackoff_isReported() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of("shuffle.partition-request.initial-backoff", "20s"));

        assertEquals(List.of("shuffle.partition-request.initial-backoff: 20s is greater than "
                + "shuffle.partition-request.max-backoff = 10s; lower shuffle.partition-request.initial-backoff "
                + "or raise shuffle.partition-request.max-backoff"), ShuffleConfigValidator.problems(config));
    }

    @Test
    void validate_listsEveryProblemOnItsOwnLine() {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of(
                "shuffle.memroy.total", "1g",
                "shuffle.netty.port", "abc",
                "shuffle.buffers-per-channel", "0"));

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> ShuffleConfigValidator.validate(config));

        assertEquals(String.join("\n",
                "Invalid shuffle configuration (3 problems):",
                "shuffle.memroy.total: unknown option; did you mean shuffle.memory.total?",
                "shuffle.buffers-per-channel: invalid value '0'; must be between 1 and 65536",
                "shuffle.netty.port: cannot parse 'abc' as int"), failure.getMessage());
    }

    @Test
    void editDistance_countsInsertionsDeletionsAndSubstitutions() {
        assertEquals(0, EditDistance.between("port", "port"));
        assertEquals(2, EditDistance.between("memroy", "memory"));
        assertEquals(1, EditDistance.between("prt", "port"));
        assertEquals(1, EditDistance.between("ports", "port"));
        assertEquals(4, EditDistance.between("", "port"));
        assertEquals(3, EditDistance.between("kitten", "sitting"));
    }
}
