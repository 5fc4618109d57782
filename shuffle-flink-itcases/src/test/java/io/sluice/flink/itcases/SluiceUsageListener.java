package io.sluice.flink.itcases;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes, after each top-level test class of a run, one line of {@link SluiceUsage} to the file named by the system
 * property {@value #FILE_PROPERTY} ({@code class,environments,bytesSent,segmentsInUse}), which
 * {@link ItCaseTable} puts beside the class's result. Registered for the JUnit Platform launcher through
 * {@code META-INF/services}, so it sees Flink's JUnit 4 (vintage) and JUnit 5 classes alike. Does nothing when the
 * property is not set. Called on the launcher's thread.
 */
public final class SluiceUsageListener implements TestExecutionListener {

    /** The system property naming the file the lines are appended to. */
    public static final String FILE_PROPERTY = "sluice.itcases.usage";

    /** How long to wait for the environments' memory to come back after the class closed its clusters. */
    private static final long MEMORY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private TestPlan plan;

    /** Public no-argument constructor for the service loader. */
    public SluiceUsageListener() {
    }

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
    }

    @Override
    public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
        String file = System.getProperty(FILE_PROPERTY);
        if (file == null || plan == null || !isTopLevelClass(identifier)) {
            return;
        }
        String className = ((ClassSource) identifier.getSource().orElseThrow()).getClassName();
        SluiceUsage.Summary summary = summaryOnceMemoryIsBack();
        String line = className + ',' + summary.environments() + ',' + summary.bytesSent() + ','
                + summary.segmentsInUse() + System.lineSeparator();
        try {
            Files.writeString(Path.of(file), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append the Sluice usage of " + className + " to " + file, e);
        }
    }

    /** A class directly under a test engine (not a nested class, not a parameterized run of one). */
    private boolean isTopLevelClass(TestIdentifier identifier) {
        if (!identifier.isContainer()
                || !(identifier.getSource().orElse(null) instanceof ClassSource)) {
            return false;
        }
        Optional<TestIdentifier> parent = plan.getParent(identifier);
        return parent.isPresent() && plan.getParent(parent.get()).isEmpty();
    }

    /**
     * The summary once every environment's segments are back, or after {@link #MEMORY_WAIT_NANOS}: buffers still
     * travelling back to their pools right after the clusters closed are not counted as kept; a diagnostic only.
     */
    private static SluiceUsage.Summary summaryOnceMemoryIsBack() {
        long deadline = System.nanoTime() + MEMORY_WAIT_NANOS;
        while (SluiceUsage.peek().segmentsInUse() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        return SluiceUsage.takeSummary();
    }
}
