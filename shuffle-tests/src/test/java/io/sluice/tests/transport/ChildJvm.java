package io.sluice.tests.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM started by a test: {@code java} of this JVM's {@code java.home}, this JVM's class path, and a main
 * class of the test sources. It talks to the test through lines {@code KEY value} on its stdout; its stderr (logs,
 * stack traces) goes to a file that failure messages quote. {@link #close()} kills it by its own process handle
 * when it is still alive, so a failing test never leaves it behind; and the child's stdin stays open for as long
 * as the test runs, so a child can end itself when it sees end of input (the test JVM died).
 *
 * <p>Built and used by the test's thread; one daemon thread reads the child's stdout.
 */
public final class ChildJvm implements AutoCloseable {

    /** How long a killed child may take to disappear: a hang guard. */
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
    /** Lines of the child's stderr quoted in a failure message. */
    private static final int STDERR_LINES_QUOTED = 40;

    private final Process process;
    private final Path stderr;
    private final String description;

    private final List<String> lines = new ArrayList<>(); // guarded by lines
    private boolean endOfOutput; // guarded by lines

    private ChildJvm(Process process, Path stderr, String description) {
        this.process = process;
        this.stderr = stderr;
        this.description = description;
    }

    /**
     * Starts {@code mainClass} in a new JVM with the test JVM's class path.
     *
     * @param mainClass a class with a main method on the class path
     * @param jvmOptions options for the child JVM, e.g. {@code -Xmx256m}
     * @param workDirectory where the child's stderr file goes
     * @param args the main method's arguments
     * @return the running child; close it
     */
    public static ChildJvm start(Class<?> mainClass, List<String> jvmOptions, Path workDirectory, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile(workDirectory, mainClass.getSimpleName(), ".stderr");
        Process process = new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .start();
        ChildJvm child = new ChildJvm(process, stderr, mainClass.getSimpleName() + " " + String.join(" ", args)
                + " (pid " + process.pid() + ")");
        Thread reader = new Thread(child::readOutput, "stdout of " + child.description);
        reader.setDaemon(true);
        reader.start();
        return child;
    }

    /** The child's stdout reader thread: collects lines until the child closes its stdout. */
    private void readOutput() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The pipe broke because the child was killed: the same as the end of its output.
        } finally {
            synchronized (lines) {
                endOfOutput = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Waits for the first line {@code KEY value} with this key.
     *
     * @return its value
     * @throws AssertionError when the child ends its output, or nothing comes within {@code timeout}
     */
    public String awaitValue(String key, Duration timeout) throws InterruptedException {
        return awaitValues(key, 1, timeout).get(0);
    }

    /**
     * Waits for the first {@code count} lines {@code KEY value} with this key.
     *
     * @return their values, in the order the child printed them
     * @throws AssertionError when the child ends its output first, or they do not come within {@code timeout}
     */
    List<String> awaitValues(String key, int count, Duration timeout) throws InterruptedException {
        String prefix = key + " ";
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                List<String> values = new ArrayList<>();
                for (String line : lines) {
                    if (line.startsWith(prefix) && values.size() < count) {
                        values.add(line.substring(prefix.length()));
                    }
                }
                if (values.size() == count) {
                    return values;
                }
                long left = deadline - System.nanoTime();
                if (endOfOutput || left <= 0) {
                    throw new AssertionError((endOfOutput ? "the child ended its output" : "nothing within "
                            + timeout.toMillis() + " ms") + " before " + count + " line(s) " + key + "; " + this);
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    /**
     * @return the child's exit code
     * @throws AssertionError when it has not exited within {@code timeout}
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError("the child did not exit within " + timeout.toMillis() + " ms; " + this);
        }
        return process.exitValue();
    }

    /** Kills the child by its process handle (no shutdown hooks, like a crash) and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the child survived destroyForcibly for " + KILL_TIMEOUT.toMillis() + " ms; "
                    + this);
        }
    }

    /** Kills the child if it is still running. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the killed child to go; " + this, e);
        }
    }

    /** @return the last lines the child wrote to stderr, for failure messages */
    String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - STDERR_LINES_QUOTED), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException("reading the stderr of " + description + " from " + stderr, e);
        }
    }

    @Override
    public String toString() {
        List<String> output;
        synchronized (lines) {
            output = new ArrayList<>(lines);
        }
        return "child " + description + (process.isAlive() ? ", running" : ", exit code " + process.exitValue())
                + "; its stdout:\n" + String.join("\n", output) + "\nits stderr (" + stderr + ", last "
                + STDERR_LINES_QUOTED + " lines):\n" + stderrTail();
    }
}
