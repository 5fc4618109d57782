package io.sluice.flink.bundle;

import io.sluice.api.ConnectionMetrics;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.flink.SluiceShuffleEnvironment;
import io.sluice.flink.SluiceShuffleServiceFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.io.network.TaskEventDispatcher;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.util.concurrent.ScheduledExecutorServiceAdapter;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * Runs inside a class loader that holds the bundle jar and Flink's jars only (see {@code ShuffleBundleIT}), so every
 * Sluice class it touches comes from the bundle: it creates two TaskManagers' shuffle environments the way Flink
 * does (Flink's {@link ShuffleEnvironmentContext} into {@link SluiceShuffleServiceFactory}) from a Flink
 * configuration, and moves records from one to the other over TCP. It names no Netty class: the bundle's Netty is
 * relocated. Test thread, plus one producer thread per run.
 */
public final class BundleProbe {

    private static final long WAIT_SECONDS = 60;
    private static final int RECORD_BYTES = 200;

    private BundleProbe() {
    }

    /**
     * Moves {@code records} records of a compressible pattern from one environment to the other.
     *
     * @param flinkOptions Flink configuration options of both TaskManagers ({@code sluice.*} keys among them)
     * @return {@code count}, {@code crc} of the records read (in order), {@code payloadBytes} and
     *     {@code bytesReceived}: the most the consumer's connections had read from their sockets (after TLS,
     *     before decompression) when sampled, while reading and at the end
     */
    public static Map<String, Long> moveRecords(Map<String, String> flinkOptions, Path tmpDir, int records)
            throws Exception {
        Configuration flink = Configuration.fromMap(flinkOptions);
        ExecutorService io = Executors.newSingleThreadExecutor();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        SluiceShuffleServiceFactory factory = new SluiceShuffleServiceFactory();
        try (SluiceShuffleEnvironment producer = environment(factory, flink, "producer", tmpDir, io, scheduler);
             SluiceShuffleEnvironment consumer = environment(factory, flink, "consumer", tmpDir, io, scheduler)) {
            producer.start();
            consumer.start();
            ShuffleConfig sluiceConfig = masterConfig(flinkOptions);
            ShuffleMaster master = ShuffleServiceLoader.load(sluiceConfig).createShuffleMaster(sluiceConfig);
            try {
                return move(master, producer.sluiceEnvironment(), consumer.sluiceEnvironment(), records);
            } finally {
                master.close();
            }
        } finally {
            io.shutdownNow();
            scheduler.shutdownNow();
        }
    }

    /**
     * Creates one environment from {@code flinkOptions} and closes it.
     *
     * @return the failure's message, or {@code null} when the environment was created
     */
    public static String environmentFailure(Map<String, String> flinkOptions, Path tmpDir) {
        ExecutorService io = Executors.newSingleThreadExecutor();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            environment(new SluiceShuffleServiceFactory(), Configuration.fromMap(flinkOptions), "tm", tmpDir, io,
                    scheduler).close();
            return null;
        } catch (RuntimeException e) {
            return e.toString();
        } finally {
            io.shutdownNow();
            scheduler.shutdownNow();
        }
    }

    private static SluiceShuffleEnvironment environment(SluiceShuffleServiceFactory factory, Configuration flink,
                                                        String name, Path tmpDir, ExecutorService io,
                                                        ScheduledExecutorService scheduler) {
        return (SluiceShuffleEnvironment) factory.createShuffleEnvironment(new ShuffleEnvironmentContext(flink,
                new ResourceID(name), MemorySize.parse("8m"), false, InetAddress.getLoopbackAddress(), 1,
                new String[] {tmpDir.toString()}, new TaskEventDispatcher(), new UnregisteredMetricsGroup(), io,
                new ScheduledExecutorServiceAdapter(scheduler)));
    }

    /** The Sluice options among the Flink ones, for the master (which Flink's JobManager would create). */
    private static ShuffleConfig masterConfig(Map<String, String> flinkOptions) {
        ShuffleConfig config = ShuffleConfig.empty();
        for (Map.Entry<String, String> option : flinkOptions.entrySet()) {
            if (option.getKey().startsWith("sluice.")) {
                config = config.with(option.getKey().substring("sluice.".length()), option.getValue());
            }
        }
        return config;
    }

    private static Map<String, Long> move(ShuffleMaster master, io.sluice.api.ShuffleEnvironment producer,
                                          io.sluice.api.ShuffleEnvironment consumer, int records) throws Exception {
        ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED, 1, 0),
                new ProducerDescriptor(producer.resourceId(), producer.dataAddress()))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        ResultPartitionWriter writer = producer.createResultPartitionWriters("probe-producer", List.of(
                new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, 1))).get(0);
        InputGate gate = consumer.createInputGates("probe-consumer",
                List.of(new InputGateDeploymentDescriptor(0, List.of(descriptor)))).get(0);
        writer.setup();
        gate.setup();
        ExecutorService producing = Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<?> produced = producing.submit(() -> {
                ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
                for (int i = 0; i < records; i++) {
                    fill(record, i);
                    writer.emitRecord(record, 0);
                }
                writer.finish();
                return null;
            });
            long count = 0;
            long bytesReceived = 0;
            CRC32 crc = new CRC32();
            try (RecordReader reader = new RecordReader(gate)) {
                for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
                    if (!next.isEvent()) {
                        crc.update(next.data());
                        count++;
                        if (count % 1000 == 0) {
                            // Sampled while reading: the connection may close, and leave the metrics, once the
                            // partition is read to its end.
                            bytesReceived = Math.max(bytesReceived, bytesReceived(consumer));
                        }
                    }
                }
            }
            produced.get(WAIT_SECONDS, TimeUnit.SECONDS);
            bytesReceived = Math.max(bytesReceived, bytesReceived(consumer));
            writer.close();
            return Map.of("count", count, "crc", crc.getValue(), "payloadBytes", (long) records * RECORD_BYTES,
                    "bytesReceived", bytesReceived);
        } finally {
            producing.shutdownNow();
        }
    }

    /** What the environment's open connections have read from their sockets so far. */
    private static long bytesReceived(io.sluice.api.ShuffleEnvironment consumer) {
        long bytes = 0;
        for (ConnectionMetrics connection : consumer.connectionMetrics()) {
            bytes += connection.bytesReceived();
        }
        return bytes;
    }

    /** Record {@code i}: its index, then a repeating pattern (compressible). */
    static void fill(ByteBuffer record, int i) {
        record.clear();
        record.putInt(i);
        while (record.hasRemaining()) {
            record.put((byte) ('a' + record.position() % 16));
        }
        record.flip();
    }

    /** The CRC32 of the first {@code records} records, as {@link #moveRecords} reads them. */
    public static long expectedCrc(int records) {
        CRC32 crc = new CRC32();
        ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
        for (int i = 0; i < records; i++) {
            fill(record, i);
            crc.update(record);
        }
        return crc.getValue();
    }
}
