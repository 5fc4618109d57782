package io.sluice.netty.config;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JVM's direct (off-heap) memory as {@code ByteBuffer.allocateDirect} counts it: the limit and what is in use
 * now. Network segments are allocated that way, all at an environment's creation, so an environment whose memory does
 * not fit can be refused up front, naming both numbers, instead of failing with an {@link OutOfMemoryError}.
 *
 * @param limit bytes the JVM allows; {@link Long#MAX_VALUE} when it cannot be read (the check then passes)
 * @param used  bytes allocated now; 0 when it cannot be read
 */
public record DirectMemory(long limit, long used) {

    /** The limit and the use of this JVM, now. Any thread. */
    public static DirectMemory ofThisJvm() {
        return new DirectMemory(readLimit(), readUsed());
    }

    /** -XX:MaxDirectMemorySize, or the maximum heap size when it is not set (the JDK's own default). */
    private static long readLimit() {
        try {
            HotSpotDiagnosticMXBean diagnostics = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long configured = diagnostics == null ? -1
                    : Long.parseLong(diagnostics.getVMOption("MaxDirectMemorySize").getValue());
            if (configured > 0) {
                return configured;
            }
            return configured == 0 ? Runtime.getRuntime().maxMemory() : Long.MAX_VALUE;
        } catch (RuntimeException | LinkageError e) {
            // Not a HotSpot JVM, or no management module: allocation itself stays the check.
            return Long.MAX_VALUE;
        }
    }

    private static long readUsed() {
        try {
            for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                if ("direct".equals(pool.getName())) {
                    return Math.max(0, pool.getMemoryUsed());
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // As for the limit: the allocation remains the check.
        }
        return 0;
    }
}
