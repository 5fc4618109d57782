package io.sluice.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The leak check that every transport test runs under can fail: a Netty buffer dropped without release is reported.
 */
class NettyLeakDetectionTest {

    @Test
    void buildRunsTestsWithParanoidLeakDetection() {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel(),
                "Netty's leak detection level (-Dio.netty.leakDetection.level in the surefire argLine)");
    }

    @Test
    void byteBufDroppedWithoutRelease_isReportedAsALeak_namingWhereItWasAllocated() {
        assertTrue(NettyLeaks.collectLeaks().isEmpty(), "no leak before this test");

        // Netty logs the report at ERROR; say so, or every build log seems to show a real leak.
        System.out.println("# NettyLeakDetectionTest leaks one ByteBuf on purpose: the LEAK report below is expected");
        leakOneBuffer();
        List<String> leaks = NettyLeaks.collectLeaks();

        // Reported once: collecting again finds nothing new, so the extension's own check after this test passes.
        assertEquals(1, leaks.size(), "leaks reported: " + leaks);
        assertTrue(leaks.get(0).startsWith("LEAK: ") && leaks.get(0).contains("leakOneBuffer"),
                "the report names the method that allocated the buffer: " + leaks.get(0));
        assertTrue(NettyLeaks.collectLeaks().isEmpty(), "nothing left to report after collecting");
    }

    /** Allocates a tracked (direct) buffer and forgets it; nothing refers to it after this returns. */
    private static void leakOneBuffer() {
        ByteBuf leaked = UnpooledByteBufAllocator.DEFAULT.directBuffer(16);
        leaked.writeLong(0x1EA4L);
    }
}
