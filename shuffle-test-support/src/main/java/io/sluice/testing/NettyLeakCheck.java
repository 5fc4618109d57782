package io.sluice.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

/**
 * Fails a test in which Netty's leak detector reported a leaked resource (a {@code ByteBuf} that was garbage
 * collected without being released), so that a leak fails the build instead of being one "LEAK:" line in a log.
 * It is registered for every test class of shuffle-netty, shuffle-tests and sluice-bench through JUnit's extension
 * autodetection ({@code META-INF/services/org.junit.jupiter.api.extension.Extension} in their test resources;
 * the root pom enables autodetection), and the build runs the tests with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked. The recording is
 * {@link NettyLeaks}'; this class only turns its reports into a failure after each test and each test class.
 *
 * <p>Any thread (JUnit's).
 */
public final class NettyLeakCheck implements AfterEachCallback, AfterAllCallback {

    static {
        NettyLeaks.install();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        failOnLeaks("test " + context.getDisplayName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // A buffer that became unreachable only when the last test's environments stopped.
        failOnLeaks("the tests of " + context.getDisplayName());
    }

    private static void failOnLeaks(String where) {
        List<String> leaks = NettyLeaks.collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError("Netty reported " + leaks.size() + " leaked resource(s) during " + where
                    + " (released never, garbage collected):\n" + String.join("\n", leaks));
        }
    }
}
