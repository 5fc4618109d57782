package io.sluice.tests;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleMetrics;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.ShuffleFixture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code createShuffleEnvironment} checks its configuration: one {@link IllegalArgumentException} lists every
 * problem, naming the key, the value and what would be right.
 */
class ConfigValidationTest {

    @EveryLayout
    void misspelledKey_isRejected_withTheClosestKnownKey(Layout layout) {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.memroy.total", "64m");

        String message = creationFailure(layout, config);

        assertContains(message, "shuffle.memroy.total: unknown option; did you mean shuffle.memory.total?");
    }

    @EveryLayout
    void valuesOutOfRange_areRejected_namingKeyValueAndAllowedRange(Layout layout) {
        ShuffleConfig config = ShuffleConfig.empty()
                .with("shuffle.buffers-per-channel", "0")
                .with("shuffle.memory.segment-size", "1k");

        String message = creationFailure(layout, config);

        assertContains(message, "shuffle.buffers-per-channel: invalid value '0'; must be between 1 and 65536");
        assertContains(message, "shuffle.memory.segment-size: invalid value '1k'; must be between 4k and 64m");
    }

    @EveryLayout
    void everyProblem_isListedInOneMessage(Layout layout) {
        ShuffleConfig config = ShuffleConfig.empty()
                .with("shuffle.floating-buffers-per-gat", "8")
                .with("shuffle.netty.port", "70000")
                .with("shuffle.netty.connect-timeout", "soon");

        String message = creationFailure(layout, config);

        assertContains(message, "3 problems");
        assertContains(message, "shuffle.floating-buffers-per-gat: unknown option; did you mean "
                + "shuffle.floating-buffers-per-gate?");
        assertContains(message, "shuffle.netty.port: invalid value '70000'; must be between 0 and 65535");
        assertContains(message, "shuffle.netty.connect-timeout: cannot parse 'soon' as duration");
    }

    @EveryLayout
    void keysOutsideTheShufflePrefix_areLeftToTheEngine(Layout layout) throws Exception {
        ShuffleConfig config = ShuffleConfig.empty()
                .with("engine.parallelism", "4")
                .with("shuffle.memory.total", "1m")
                .with("shuffle.memory.segment-size", "64k");

        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, config)) {
            ShuffleMetrics metrics = shuffle.producerEnvironment().metrics();
            assertEquals(16, metrics.totalSegments(), "segments of 1m cut into 64k");
            assertEquals(16, metrics.availableSegments(), "free segments of a new environment");
        }
    }

    private static String creationFailure(Layout layout, ShuffleConfig config) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> ShuffleFixture.start(layout, config).close(), "creating an environment with " + config);
        return failure.getMessage();
    }

    private static void assertContains(String message, String expected) {
        assertTrue(message.contains(expected), "expected the message to contain \"" + expected + "\", but it is:\n"
                + message);
    }
}
