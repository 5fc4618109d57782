package io.sluice.tests.transport;

import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.testing.Await;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.testing.NettyLeaks;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.StreamDigest;
import io.sluice.tests.support.Transport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The main class of the producer JVM that {@link ProducerProcessTest} starts: one environment with one partition of
 * {@value #SUBPARTITIONS} subpartitions, registered with its own shuffle master, producing a known data set (or an
 * endless stream) for a consumer in the test's JVM.
 *
 * <p>Arguments: {@code <transport> <records per subpartition | endless>}. It tells the test, one {@code KEY value}
 * line at a time on stdout:
 * <pre>
 *   PORT &lt;data port&gt;           RESOURCE_ID &lt;its ResourceId&gt;
 *   PARTITION &lt;the ShuffleDescriptor, Java-serialized, Base64&gt;
 *   SENT &lt;subpartition&gt; &lt;records&gt; &lt;bytes&gt; &lt;crc32c&gt;   (per subpartition, once it finished; a StreamDigest)
 *   SEGMENTS &lt;available&gt; &lt;total&gt;   LEAKS &lt;Netty leak reports&gt;   (after its environment closed)
 * </pre>
 * It exits 0 once its partition was consumed and everything was given back, {@value #EXIT_LEAK} when memory or a
 * Netty buffer leaked, {@value #EXIT_FAILED} on an exception (stack trace on stderr), {@value #EXIT_ORPHANED} when
 * its stdin ends (the test JVM is gone). An endless producer runs until it is killed.
 *
 * <p>The main thread produces; one daemon thread watches stdin.
 */
public final class ProducerProcess {

    static final int SUBPARTITIONS = 2;
    static final String ENDLESS = "endless";
    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    /** The configuration of the producer's environment and of the consumer's in the test JVM. */
    static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 3 * SEGMENT_SIZE);
    private static final long SEED = 0x9C0CE55L;
    /** How long the consumer may take to read the whole data set: a hang guard of the child. */
    private static final Duration CONSUMED_TIMEOUT = Duration.ofSeconds(60);

    static final int EXIT_FAILED = 1;
    static final int EXIT_LEAK = 2;
    static final int EXIT_ORPHANED = 3;

    private ProducerProcess() {
    }

    /**
     * Starts a producer JVM.
     *
     * @param transport nio or epoll (the local transport does not cross processes)
     * @param records per subpartition, or {@link #ENDLESS}
     * @param workDirectory where its stderr file goes
     * @return the running child; close it
     */
    static ChildJvm start(Transport transport, String records, Path workDirectory) throws IOException {
        return ChildJvm.start(ProducerProcess.class,
                List.of("-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-Dio.netty.leakDetection.level=paranoid",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                workDirectory, transport.name(), records);
    }

    /** @return the descriptor of the child's partition, from its PARTITION line */
    static ShuffleDescriptor decodeDescriptor(String base64) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(Base64.getDecoder()
                .decode(base64)))) {
            return (ShuffleDescriptor) in.readObject();
        }
    }

    public static void main(String[] args) {
        NettyLeaks.install();
        endWhenStdinEnds();
        try {
            System.exit(run(Transport.valueOf(args[0]), args[1]));
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(EXIT_FAILED);
        }
    }

    private static int run(Transport transport, String records) throws Exception {
        ShuffleConfig config = transport.configure(CONFIG);
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        ResourceId resourceId = new ResourceId("producer-process-" + ProcessHandle.current().pid());
        ShuffleEnvironment environment = factory.createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, resourceId));
        say("PORT", String.valueOf(environment.start()));
        say("RESOURCE_ID", resourceId.value());
        ShuffleDescriptor descriptor;
        try (ShuffleMaster master = factory.createShuffleMaster(config)) {
            descriptor = master.registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED,
                            SUBPARTITIONS, 0),
                    new ProducerDescriptor(resourceId, environment.dataAddress())).get(10, TimeUnit.SECONDS);
        }
        ResultPartitionWriter writer = environment.createResultPartitionWriters("producer process", List.of(
                new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, SUBPARTITIONS)))
                .get(0);
        writer.setup();
        say("PARTITION", encode(descriptor));

        RecordGenerator[] streams = new RecordGenerator[SUBPARTITIONS];
        StreamDigest[] digests = new StreamDigest[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            // The records of subpartition s carry stream number s.
            streams[s] = new RecordGenerator(s, SEED, SIZES);
            digests[s] = new StreamDigest();
        }
        long perSubpartition = ENDLESS.equals(records) ? Long.MAX_VALUE : Long.parseLong(records);
        for (long i = 0; i < perSubpartition; i++) {
            for (int s = 0; s < SUBPARTITIONS; s++) {
                ByteBuffer record = streams[s].next(System.nanoTime());
                digests[s].add(record);
                writer.emitRecord(record, s);
            }
        }
        writer.finish();
        for (int s = 0; s < SUBPARTITIONS; s++) {
            StreamDigest.Summary sent = digests[s].summary();
            say("SENT", s + " " + sent.records() + " " + sent.bytes() + " " + sent.crc32c());
        }
        Await.until(() -> environment.partitionsOccupyingLocalResources().isEmpty(), CONSUMED_TIMEOUT,
                () -> "partition " + descriptor.partitionId() + " consumed and released");
        writer.close();
        environment.close();
        ShuffleMetrics metrics = environment.metrics();
        say("SEGMENTS", metrics.availableSegments() + " " + metrics.totalSegments());
        List<String> leaks = NettyLeaks.collectLeaks();
        say("LEAKS", String.valueOf(leaks.size()));
        leaks.forEach(System.err::println);
        return metrics.availableSegments() == metrics.totalSegments() && leaks.isEmpty() ? 0 : EXIT_LEAK;
    }

    private static void say(String key, String value) {
        System.out.println(key + " " + value);
        System.out.flush();
    }

    private static String encode(ShuffleDescriptor descriptor) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(descriptor);
        }
        return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    /** The test JVM holds our stdin open; when it ends, nobody will read or kill us: stop at once. */
    private static void endWhenStdinEnds() {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // The test sends nothing; only the end of input matters.
                }
            } catch (IOException e) {
                // A broken stdin means the same as its end.
            }
            Runtime.getRuntime().halt(EXIT_ORPHANED);
        }, "stdin watcher");
        watcher.setDaemon(true);
        watcher.start();
    }
}
