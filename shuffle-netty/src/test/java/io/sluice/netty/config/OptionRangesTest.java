package io.sluice.netty.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.netty.NettyShuffleServiceFactory;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values that passed validation and failed much later (at start(), at a gate's or a writer's setup, or on every
 * connection) with an exception that named no option: each is refused when the environment is created, with one
 * line naming the option, the value as written, and the allowed range.
 */
class OptionRangesTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        // Was IndexOutOfBoundsException from gate.setup(), and "negative number of segments" for 536870912.
        "shuffle.buffers-per-channel               | 1073741824     | must be between 1 and 65536",
        "shuffle.buffers-per-channel               | 536870912      | must be between 1 and 65536",
        // Was "needs -2147483641 buffers" at gate.setup().
        "shuffle.floating-buffers-per-gate         | 2147483647     | must be between 0 and 65536",
        // Was ArithmeticException (long overflow) from start().
        "shuffle.netty.connect-timeout             | 1000000000000d | must be between 1ms and 24h",
        "shuffle.netty.bind-timeout                | 1000000000000d | must be between 1ms and 24h",
        // Was ArithmeticException from a gate's setup().
        "shuffle.partition-request.max-backoff     | 1000000000000d | must be between 1ms and 24h",
        "shuffle.partition-request.initial-backoff | 1000000000000d | must be between 1ms and 24h",
        // Was ArithmeticException when a writer was created.
        "shuffle.output.flush-interval             | 200000d        | must be 0 or between 1ms and 24h",
        // Was OutOfMemoryError (unable to create native thread) from start().
        "shuffle.netty.server-threads              | 2147483647     | must be between 0 and ",
        "shuffle.netty.client-threads              | 2147483647     | must be between 0 and ",
        // Was a StacklessClosedChannelException on every connection.
        "shuffle.netty.heartbeat-timeout           | 200000d        | must be between 1ms and 24h",
        // A timeout under a millisecond was cut to 0, which Netty reads as "no timeout".
        "shuffle.security.ssl.handshake-timeout    | 500us          | must be between 1ms and 24h",
        // The buffer debloating options' ranges (a buffer under 64 bytes would be mostly frame and buffer overhead).
        "shuffle.debloat.min-buffer-size           | 32             | must be between 64 and 64m",
        "shuffle.debloat.min-buffer-size           | 128m           | must be between 64 and 64m",
        "shuffle.debloat.starting-buffer-size      | 32             | must be between 64 and 64m",
        "shuffle.debloat.threshold-percentage      | 101            | must be between 0 and 100",
        "shuffle.debloat.threshold-percentage      | -1             | must be between 0 and 100",
        "shuffle.debloat.samples                   | 0              | must be between 1 and 10000",
        "shuffle.debloat.samples                   | 10001          | must be between 1 and 10000",
        "shuffle.debloat.target                    | 0              | must be between 1ms and 24h",
        "shuffle.debloat.period                    | 2d             | must be 0 or between 1ms and 24h",
    })
    void valueThatOverflowedDownstream_isRefusedAtCreation_namingOptionValueAndRange(String key, String value,
                                                                                     String range) {
        String message = creationFailure(ShuffleConfig.empty().with(key, value));

        assertTrue(message.contains(key + ": invalid value '" + value + "'; " + range), message);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "shuffle.buffers-per-channel       | 60000 | shuffle.buffers-per-channel: invalid value '60000'; one remote "
                + "channel's exclusive buffers and the gate's floating buffers (shuffle.floating-buffers-per-gate = 8) "
                + "must fit the environment's 2048 segments (shuffle.memory.total = 64m in segments of "
                + "shuffle.memory.segment-size = 32k): at most 2040; lower it or raise shuffle.memory.total",
        "shuffle.floating-buffers-per-gate | 4000  | shuffle.floating-buffers-per-gate: invalid value '4000'; one "
                + "remote channel's exclusive buffers (shuffle.buffers-per-channel = 2) and the gate's floating buffers "
                + "must fit the environment's 2048 segments (shuffle.memory.total = 64m in segments of "
                + "shuffle.memory.segment-size = 32k): at most 2046; lower it or raise shuffle.memory.total",
    })
    void gateMemoryThatCannotFitThePool_isRefusedAtCreation_withTheNumbers(String key, String value,
                                                                           String problem) {
        String message = creationFailure(ShuffleConfig.empty().with(key, value));

        assertTrue(message.contains(problem), message);
    }

    @Test
    void tinyMemory_blamesTheMemory_whenLoweringNeitherGateOptionAloneCanFit() {
        String message = creationFailure(ShuffleConfig.empty().with("shuffle.memory.total", "16k")
                .with("shuffle.memory.segment-size", "4k").with("shuffle.floating-buffers-per-gate", "4")
                .with("shuffle.buffers-per-channel", "5"));

        assertTrue(message.contains("shuffle.memory.total: the environment's 4 segments (shuffle.memory.total = 16k "
                + "in segments of shuffle.memory.segment-size = 4k) cannot hold a gate of one remote channel, which "
                + "needs 9 buffers (shuffle.buffers-per-channel = 5 + shuffle.floating-buffers-per-gate = 4); raise "
                + "shuffle.memory.total or lower those options"), message);
    }

    @Test
    void environmentWithoutTransport_needsNoGateMemory_butTwoSegmentsForAPartition() throws Exception {
        ShuffleConfig fourSegments = ShuffleConfig.empty().with("shuffle.memory.total", "16k")
                .with("shuffle.memory.segment-size", "4k");
        EnvironmentConfig.from(new ShuffleEnvironmentContext(fourSegments, new ResourceId("local"), 16 << 10, true,
                InetAddress.getLoopbackAddress()), new DirectMemory(1L << 30, 0));

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> EnvironmentConfig.from(
                new ShuffleEnvironmentContext(fourSegments, new ResourceId("local"), 6 << 10, true,
                        InetAddress.getLoopbackAddress()), new DirectMemory(1L << 30, 0)));

        assertTrue(failure.getMessage().contains("shuffle.memory.total: network memory of 6k makes 1 segment of 4k "
                + "(shuffle.memory.segment-size), fewer than the 2 a partition of one subpartition needs; raise "
                + "shuffle.memory.total or lower shuffle.memory.segment-size"), failure.getMessage());
    }

    @Test
    void networkMemoryBeyondTheJvmsDirectMemory_isRefusedAtCreation_namingBothNumbers() {
        ShuffleConfig config = ShuffleConfig.empty().with("shuffle.memory.total", "1g");

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> EnvironmentConfig.from(
                ShuffleEnvironmentContext.of(config, new ResourceId("big")), new DirectMemory(1L << 30, 3L << 20)));

        assertTrue(failure.getMessage().contains("shuffle.memory.total: network memory of 1g does not fit the JVM's "
                + "direct memory: its limit is 1g (-XX:MaxDirectMemorySize, else the maximum heap size) and 3m of it "
                + "is in use; lower shuffle.memory.total or raise -XX:MaxDirectMemorySize"), failure.getMessage());
    }

    @Test
    void networkMemoryBeyondThisJvmsDirectMemory_isRefused_insteadOfAnOutOfMemoryError() {
        // The tests' JVMs run with -XX:MaxDirectMemorySize=1g.
        String message = creationFailure(ShuffleConfig.empty().with("shuffle.memory.total", "2g"));

        assertTrue(message.contains("shuffle.memory.total: network memory of 2g does not fit the JVM's direct memory"),
                message);
    }

    @Test
    void tmpDirThatIsNoPath_isRefusedAtCreation_namingTheOption() {
        String message = creationFailure(ShuffleConfig.empty().with("shuffle.tmp-dirs", "/tmp/a\u0000b"));

        assertTrue(message.contains("shuffle.tmp-dirs: '/tmp/a\u0000b' is not a valid path"), message);
    }

    private static String creationFailure(ShuffleConfig config) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> {
            ShuffleEnvironment environment = new NettyShuffleServiceFactory()
                    .createShuffleEnvironment(ShuffleEnvironmentContext.of(config, new ResourceId("ranges")));
            environment.close();
        }, "creating an environment with " + config);
        return failure.getMessage();
    }
}
