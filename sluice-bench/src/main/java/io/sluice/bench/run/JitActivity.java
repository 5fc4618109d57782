package io.sluice.bench.run;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * How much the JVM's JIT compiler worked: the warm-up's test for "settled". A JVM on two vCPUs compiles the hot
 * methods of a phase change (the first read, a new connection's messages) for seconds after they start, and
 * methods run at a few thousand calls a second (an event loop's iteration) reach the optimizing compiler only after
 * several warm-up rounds; a measured phase that starts before then pays for those compilations. Used by the main
 * thread.
 */
public final class JitActivity {

    /** A warm-up round in which the compiler worked less than this share of the round's time ends the warm-up. */
    public static final int SETTLED_PERCENT = 5;

    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();

    /** @return true when this JVM reports its compilation time (HotSpot does) */
    boolean monitored() {
        return compiler != null && compiler.isCompilationTimeMonitoringSupported();
    }

    /** @return the compiler's accumulated working time, all compiler threads together, in ms; 0 when not monitored */
    long compileMillis() {
        return monitored() ? compiler.getTotalCompilationTime() : 0;
    }

    /**
     * @param compileMillis the compiler's working time during a round
     * @param roundNanos the round's wall-clock time
     * @return true when the compiler worked less than {@link #SETTLED_PERCENT} of the round
     */
    static boolean settled(long compileMillis, long roundNanos) {
        return compileMillis * 1_000_000L * 100 < roundNanos * SETTLED_PERCENT;
    }
}
