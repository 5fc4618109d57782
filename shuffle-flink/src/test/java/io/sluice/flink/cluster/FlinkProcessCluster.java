package io.sluice.flink.cluster;

import io.sluice.flink.bundle.FlinkJars;
import io.sluice.testing.Await;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Flink session cluster of separate JVMs on loopback, laid out as an operator would: a {@code lib/} directory of
 * Flink's jars plus only Sluice's bundle jar, a {@code conf/config.yaml} with the one line that selects Sluice, a
 * JobManager ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each with its
 * log in {@code log/}. Every process is killed by its own handle on {@link #close()}, or by a shutdown hook if the
 * test JVM exits first. Test thread.
 */
final class FlinkProcessCluster implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";
    private static final Duration STARTUP_LIMIT = Duration.ofMinutes(2);
    private static final long STOP_SECONDS = 30;
    private static final String JOB_MANAGER = "jobmanager";

    private final Path home;
    private final int restPort;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Thread killOnExit = new Thread(this::killAll, "kill-flink-processes");
    /** HTTP/1.1: Flink's REST endpoint does not answer a request that offers an upgrade to HTTP/2. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    private FlinkProcessCluster(Path home, int restPort) {
        this.home = home;
        this.restPort = restPort;
    }

    /**
     * Lays out the cluster in {@code home} and starts a JobManager and {@code taskManagers} TaskManagers
     * ({@code tm-1}, {@code tm-2}, ...), returning once all of them registered.
     *
     * @param options extra lines of {@code config.yaml}
     */
    static FlinkProcessCluster start(Path home, Path bundleJar, int taskManagers, Map<String, String> options)
            throws IOException {
        Path lib = Files.createDirectories(home.resolve("lib"));
        for (Path jar : FlinkJars.onTheClassPath()) {
            Path link = lib.resolve(jar.getFileName());
            if (!Files.exists(link)) {
                Files.createSymbolicLink(link, jar);
            }
        }
        Files.createSymbolicLink(lib.resolve(bundleJar.getFileName()), bundleJar);
        Files.createDirectories(home.resolve("log"));
        int restPort = freePort();
        Map<String, String> config = new LinkedHashMap<>();
        config.put("shuffle-service-factory.class", "io.sluice.flink.SluiceShuffleServiceFactory");
        config.put("jobmanager.rpc.address", LOOPBACK);
        // The TaskManagers find the JobManager at a fixed port: a free one, found by binding port 0.
        config.put("jobmanager.rpc.port", Integer.toString(freePort()));
        config.put("jobmanager.bind-host", LOOPBACK);
        config.put("rest.address", LOOPBACK);
        config.put("rest.bind-address", LOOPBACK);
        config.put("rest.port", Integer.toString(restPort));
        config.put("blob.server.port", "0");
        config.put("taskmanager.host", LOOPBACK);
        config.put("taskmanager.bind-host", LOOPBACK);
        config.put("taskmanager.rpc.port", "0");
        config.put("taskmanager.numberOfTaskSlots", "2");
        // TaskManagerRunner started directly (not through Flink's scripts) needs every memory component given.
        config.put("taskmanager.cpu.cores", "2");
        config.put("taskmanager.memory.framework.heap.size", "64m");
        config.put("taskmanager.memory.framework.off-heap.size", "32m");
        config.put("taskmanager.memory.task.heap.size", "64m");
        config.put("taskmanager.memory.task.off-heap.size", "0m");
        config.put("taskmanager.memory.network.min", "16m");
        config.put("taskmanager.memory.network.max", "16m");
        config.put("taskmanager.memory.managed.size", "16m");
        config.put("taskmanager.memory.jvm-metaspace.size", "96m");
        config.put("taskmanager.memory.jvm-overhead.min", "64m");
        config.put("taskmanager.memory.jvm-overhead.max", "64m");
        // A lost TaskManager is noticed within 15 s, not Flink's default 50; on a loaded machine a shorter timeout
        // would lose live ones. Likewise the RPC system gets longer than its defaults to start and to answer.
        config.put("heartbeat.interval", "2000");
        config.put("heartbeat.timeout", "15000");
        config.put("pekko.startup-timeout", "60 s");
        config.put("pekko.ask.timeout", "30 s");
        config.put("metrics.fetcher.update-interval", "500");
        config.put("io.tmp.dirs", Files.createDirectories(home.resolve("tmp")).toString());
        config.put("sluice.shuffle.netty.server-threads", "1");
        config.put("sluice.shuffle.netty.client-threads", "1");
        config.putAll(options);
        Path conf = Files.createDirectories(home.resolve("conf"));
        StringBuilder yaml = new StringBuilder();
        for (Map.Entry<String, String> option : config.entrySet()) {
            yaml.append(option.getKey()).append(": ").append(option.getValue()).append('\n');
        }
        Files.writeString(conf.resolve("config.yaml"), yaml.toString(), StandardCharsets.UTF_8);

        FlinkProcessCluster cluster = new FlinkProcessCluster(home, restPort);
        Runtime.getRuntime().addShutdownHook(cluster.killOnExit);
        try {
            cluster.launch(JOB_MANAGER, "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                    List.of());
            cluster.awaitRest();
            // One after the other: JVMs starting together on a small machine starve each other's startup.
            for (int i = 1; i <= taskManagers; i++) {
                cluster.startTaskManager("tm-" + i);
                cluster.awaitTaskManagers(i);
            }
        } catch (IOException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Starts one more TaskManager, with {@code resourceId} as its resource id. */
    void startTaskManager(String resourceId) throws IOException {
        launch(resourceId, "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                List.of("-D", "taskmanager.resource-id=" + resourceId));
    }

    /** Kills a TaskManager with SIGKILL (no shutdown of any kind) and waits until its process is gone. */
    void kill(String resourceId) throws InterruptedException {
        Process process = processes.get(resourceId);
        process.destroyForcibly();
        process.waitFor(STOP_SECONDS, TimeUnit.SECONDS);
    }

    /** @return a REST client of the cluster; the caller closes it */
    RestClusterClient<StandaloneClusterId> client() throws Exception {
        Configuration config = new Configuration();
        config.set(RestOptions.ADDRESS, LOOPBACK);
        config.set(RestOptions.PORT, restPort);
        return new RestClusterClient<>(config, StandaloneClusterId.getInstance());
    }

    /** GETs {@code path} from the REST API; null when it does not answer 200. */
    JsonNode rest(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://" + LOOPBACK + ":" + restPort + path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? json.readTree(response.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** @return the resource ids of the TaskManagers registered with the JobManager */
    List<String> registeredTaskManagers() {
        List<String> ids = new ArrayList<>();
        JsonNode answer = rest("/taskmanagers");
        if (answer != null) {
            for (JsonNode taskManager : answer.path("taskmanagers")) {
                ids.add(taskManager.path("id").asText());
            }
        }
        return ids;
    }

    /** @return the last {@code lines} lines of every process's log, for a failure's message */
    String logTails(int lines) {
        StringBuilder tails = new StringBuilder();
        for (String name : processes.keySet()) {
            try {
                List<String> all = Files.readAllLines(log(name), StandardCharsets.UTF_8);
                tails.append("\n--- ").append(name).append(" (last ").append(lines).append(" lines of ")
                        .append(log(name)).append(") ---\n");
                for (String line : all.subList(Math.max(0, all.size() - lines), all.size())) {
                    tails.append(line).append('\n');
                }
            } catch (IOException | UncheckedIOException e) {
                tails.append("\n--- ").append(name).append(": no log (").append(e).append(") ---\n");
            }
        }
        return tails.toString();
    }

    /** @return the log of a process */
    Path log(String name) {
        return home.resolve("log").resolve(name + ".log");
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook does the same.
        }
    }

    private void killAll() {
        for (Process process : processes.values()) {
            process.destroyForcibly();
        }
        for (Process process : processes.values()) {
            try {
                process.waitFor(STOP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void launch(String name, String mainClass, List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:MaxDirectMemorySize=128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dlog.file=" + log(name),
                "-cp", home.resolve("lib") + "/*", mainClass,
                "--configDir", home.resolve("conf").toString()));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(log(name).toFile()).start();
        processes.put(name, process);
    }

    private void awaitRest() {
        Await.until(() -> aliveOrFail(JOB_MANAGER) && rest("/overview") != null, STARTUP_LIMIT,
                () -> "the JobManager's REST endpoint did not answer" + logTails(40));
    }

    private void awaitTaskManagers(int count) {
        Await.until(() -> registeredTaskManagers().size() == count, STARTUP_LIMIT,
                () -> "TaskManagers registered: " + registeredTaskManagers() + ", expected " + count
                        + logTails(40));
    }

    /** Whether the process runs; a process that exited fails the wait at once, with its log. */
    private boolean aliveOrFail(String name) {
        Process process = processes.get(name);
        if (!process.isAlive()) {
            throw new AssertionError(name + " exited with " + process.exitValue() + logTails(60));
        }
        return true;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
    }
}
