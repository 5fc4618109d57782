package io.sluice.tests.blocking;

import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.RecordReader;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ShuffleServiceFactory;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.tests.support.MemoryConfig;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The main class of the JVM that {@link OpenFilesLimitTest} starts: an environment without transport whose process
 * has used up its open-files limit when a blocking partition is set up. It prints one line {@code FAILURE <message>}
 * with what the setup threw (or {@code FAILURE none}), then exits 0. Argument: the temporary directory to use.
 *
 * <p>It first lowers its own soft limit to {@value #OPEN_FILES} with {@code prlimit} where that exists (the JVM
 * raised it to the hard limit), so that using it up is quick, and runs one whole blocking partition, so that every
 * class the failing setup needs is loaded before no file can be opened. Main thread only.
 */
public final class OpenFilesExhaustedProcess {

    private static final int OPEN_FILES = 1024;

    private OpenFilesExhaustedProcess() {
    }

    public static void main(String[] args) throws Exception {
        Path tmp = Path.of(args[0]);
        lowerOpenFilesLimit();
        ShuffleConfig config = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString());
        ShuffleServiceFactory factory = ShuffleServiceLoader.load(config);
        ResourceId id = new ResourceId("open-files");
        ShuffleEnvironment environment = factory.createShuffleEnvironment(new ShuffleEnvironmentContext(config, id,
                config.get(ShuffleOptions.MEMORY_TOTAL), true, InetAddress.getLoopbackAddress()));
        try (ShuffleMaster master = factory.createShuffleMaster(config)) {
            writeAndRead(environment, master);
            loadWhatTheFailureNeeds();
            ResultPartitionWriter writer = blocking(environment, master).writer();
            List<FileChannel> held = new ArrayList<>();
            String failure = "none";
            try {
                useUpOpenFiles(tmp.resolve("held"), held);
                writer.setup();
            } catch (ShuffleException e) {
                failure = e.getMessage().replace('\n', ' ');
            } finally {
                for (FileChannel channel : held) {
                    channel.close();
                }
            }
            System.out.println("FAILURE " + failure);
            System.out.flush();
            writer.close();
        } finally {
            environment.close();
        }
    }

    private static void lowerOpenFilesLimit() {
        try {
            new ProcessBuilder("prlimit", "--pid", Long.toString(ProcessHandle.current().pid()),
                    "--nofile=" + OPEN_FILES + ":").inheritIO().start().waitFor();
        } catch (IOException e) {
            // No prlimit: the limit is used up as it is, which only takes longer.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A writer of a new blocking partition of one subpartition, not set up, and what its readers read it by. */
    private record Blocking(ResultPartitionWriter writer, ShuffleDescriptor descriptor) {
    }

    private static void writeAndRead(ShuffleEnvironment environment, ShuffleMaster master) throws Exception {
        Blocking blocking = blocking(environment, master);
        ResultPartitionWriter writer = blocking.writer();
        writer.setup();
        writer.emitRecord(ByteBuffer.wrap(new byte[100]), 0);
        writer.finish();
        InputGate gate = environment.createInputGates("reader", List.of(new InputGateDeploymentDescriptor(0,
                List.of(blocking.descriptor())))).get(0);
        try (RecordReader reader = new RecordReader(gate)) {
            gate.setup();
            while (reader.next() != null) {
                // Only the classes of a whole read matter here.
            }
        }
        writer.close();
    }

    private static Blocking blocking(ShuffleEnvironment environment, ShuffleMaster master) {
        ShuffleDescriptor descriptor = master.registerPartitionWithProducer(
                new PartitionDescriptor(ResultPartitionId.random(), PartitionType.BLOCKING, 1, 0),
                new ProducerDescriptor(environment.resourceId(), environment.dataAddress())).join();
        return new Blocking(environment.createResultPartitionWriters("producer", List.of(
                new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.BLOCKING, 1))).get(0), descriptor);
    }

    /** Classes are read from files when first used: with no file left, a class not loaded yet could not be. */
    private static void loadWhatTheFailureNeeds() {
        for (String name : List.of("io.sluice.api.ShuffleException", "java.nio.file.FileSystemException",
                "java.nio.file.NoSuchFileException", "io.sluice.netty.file.FileErrors")) {
            try {
                Class.forName(name);
            } catch (ClassNotFoundException e) {
                // A library without that class: what it says instead is what the test checks.
            }
        }
        ManagementFactory.getOperatingSystemMXBean().getName();
    }

    /** Opens {@code file} until the process may open no more. */
    private static void useUpOpenFiles(Path file, List<FileChannel> held) throws IOException {
        Files.writeString(file, "held open");
        try {
            while (true) {
                held.add(FileChannel.open(file, StandardOpenOption.READ));
            }
        } catch (FileSystemException limitReached) {
            // Every descriptor is taken now.
        }
    }
}
