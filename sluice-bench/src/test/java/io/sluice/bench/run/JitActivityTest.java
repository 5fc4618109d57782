package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When the warm-up counts the JIT compiler as settled. */
class JitActivityTest {

    @Test
    void aRoundIsSettled_onlyWhenTheCompilerWorkedLessThanFivePercentOfIt() {
        long twoSeconds = 2_000_000_000L;

        assertTrue(JitActivity.settled(0, twoSeconds));
        assertTrue(JitActivity.settled(99, twoSeconds), "4.95 %");
        assertFalse(JitActivity.settled(100, twoSeconds), "5 %");
        assertFalse(JitActivity.settled(1_500, twoSeconds), "75 %, a round still compiling its read path");
    }

    @Test
    void thisJvmReportsItsCompileTime_soTheWarmUpCanStopEarly() {
        JitActivity jit = new JitActivity();

        assertTrue(jit.monitored(), "HotSpot reports compilation time");
        assertTrue(jit.compileMillis() >= 0);
    }
}
