package io.sluice.tests.chaos;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded fault injection in the build: runs {@code -Dchaos.seeds} seeds (default 200) from {@code -Dchaos.start}
 * (default 1), or only {@code -Dchaos.seed}. Each seed is one invocation, so Netty's leak check (the autodetected
 * NettyLeakCheck extension, with the paranoid detector the build sets) runs after each and names the seed that
 * leaked. A failing seed prints its report and the one-line command that replays it.
 */
class ChaosTest {

    static LongStream seeds() {
        String one = System.getProperty("chaos.seed");
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        long start = Long.getLong("chaos.start", 1L);
        long count = Long.getLong("chaos.seeds", 200L);
        return LongStream.range(start, start + count);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void seed_deliversEverythingOrFailsAsDocumented_leaksNothing_hangsNowhere(long seed) {
        ChaosResult result = new ChaosRun(seed).execute();
        if (!result.passed()) {
            System.err.println(result.report());
            fail("chaos seed " + seed + " failed; replay: " + ChaosResult.replayCommand(seed) + "\n"
                    + result.report());
        }
    }
}
