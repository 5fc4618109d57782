package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

        assertEquals(List.of("shuffle.partition-request.initial-backoff: 100000000000000h is greater than"
                + " shuffle.partition-request.max-backoff = 1ms; lower shuffle.partition-request.initial-backoff or raise"
                + " shuffle.partition-request.max-backoff"), ShuffleConfigValidator.problems(config));
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
        "shuffle.memory.total                      | 0      | must be >= 1",
        "shuffle.memory.segment-size               | 1k     | must be between 4096 and 1073741824",
        "shuffle.memory.segment-size               | 2g     | must be between 4096 and 1073741824",
        "shuffle.buffers-per-channel               | 0      | must be >= 1",
        "shuffle.floating-buffers-per-gate         | -1     | must be >= 0",
        "shuffle.max-buffers-per-subpartition      | 0      | must be >= 1",
        "shuffle.netty.transport                   | kqueue | must be one of auto, nio, epoll, local",
        "shuffle.netty.port                        | 65536  | must be between 0 and 65535",
        "shuffle.netty.port                        | -1     | must be between 0 and 65535",
        "shuffle.netty.server-threads              | -2     | must be >= 0",
        "shuffle.netty.client-threads              | -3     | must be >= 0",
        "shuffle.netty.connect-timeout             | 0      | must be > 0",
        "shuffle.partition-request.initial-backoff | 0ms    | must be > 0",
        "shuffle.partition-request.max-backoff     | 0s     | must be > 0",
        "shuffle.input.spin-wait                   | 11ms   | must be between 0ms and 10ms",
        "shuffle-service-factory.class             | ' '    | must not be empty",
    })
    void valueOutOfRange_isReportedWithTheRange(String key, String value, String requirement) {
        ShuffleConfig config = ShuffleConfig.empty().with(key, value);

        List<String> problems = ShuffleConfigValidator.problems(config);

        assertEquals(1, problems.size(), problems.toString());
        assertEquals(key + ": invalid value '", problems.get(0).substring(0, key.length() + 17));
        assertEquals(requirement, problems.get(0).substring(problems.get(0).indexOf("; ") + 2));
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

    @ParameterizedTest(name = "{0} in segments of {1}")
    @CsvSource(delimiter = '|', value = {
        "16k   | 32k | shuffle.memory.total: 16k is less than one segment (shuffle.memory.segment-size = 32k); "
                + "raise shuffle.memory.total or lower shuffle.memory.segment-size",
        "8192g | 4k  | shuffle.memory.total: 8t makes 2147483648 segments of 4k, more than 2147483647; "
                + "lower shuffle.memory.total or raise shuffle.memory.segment-size",
    })
    void memoryThatMakesNoUsableSegmentCount_isReportedWithBothOptions(String total, String segment, String problem) {
        ShuffleConfig config = ShuffleConfig.fromMap(Map.of("shuffle.memory.total", total,
                "shuffle.memory.segment-size", segment));

        assertEquals(List.of(problem), ShuffleConfigValidator.problems(config));
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
                "shuffle.buffers-per-channel: invalid value '0'; must be >= 1",
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
