package io.sluice.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * sluice-bench in a process of its own, with this JVM's class path. Stdout is read line by line
 * on a reader thread; stderr goes to a file so a full pipe can never stall the process.
 * Used by one test thread.
 */
final class CliProcess implements AutoCloseable {

    private final Process process;
    private final Path stderr;
    private final List<String> lines = new ArrayList<>(); // guarded by lines
    private final CompletableFuture<String> firstLine = new CompletableFuture<>();
    private final CompletableFuture<Void> stdoutEnded = new CompletableFuture<>();

    private CliProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::readStdout, "stdout-of-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param args the command line of sluice-bench
     * @return the started process
     * @throws IOException when it cannot start
     */
    static CliProcess start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:MaxDirectMemorySize=512m", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("sluice-bench-", ".stderr");
        Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new CliProcess(process, stderr);
    }

    /**
     * @param seconds the longest wait
     * @return the first line the process printed on stdout
     * @throws Exception when it printed none in time (the message holds its stderr)
     */
    String firstLine(long seconds) throws Exception {
        try {
            return firstLine.get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            throw new AssertionError("no first line from " + process.info().commandLine().orElse("?") + "; stderr:\n" + stderr(), e);
        }
    }

    /**
     * Waits for the process to exit and its stdout to be read.
     *
     * @param seconds the longest wait
     * @return its exit status
     * @throws Exception when it does not exit in time
     */
    int waitFor(long seconds) throws Exception {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after " + seconds + " s; stderr:\n" + stderr());
        }
        stdoutEnded.get(seconds, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /** @return the last line printed on stdout (the summary when --json) */
    String lastLine() {
        synchronized (lines) {
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }
    }

    /** @return everything printed on stdout so far */
    String stdout() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** @return what the process printed on stderr so far */
    String stderr() throws IOException {
        return Files.readString(stderr, StandardCharsets.UTF_8);
    }

    /** Kills the process if it still runs, and removes its stderr file. */
    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        Files.deleteIfExists(stderr);
    }

    private void readStdout() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                }
                firstLine.complete(line);
            }
            firstLine.completeExceptionally(new IOException("stdout ended without a line"));
            stdoutEnded.complete(null);
        } catch (IOException e) {
            firstLine.completeExceptionally(e);
            stdoutEnded.completeExceptionally(e);
        }
    }
}
