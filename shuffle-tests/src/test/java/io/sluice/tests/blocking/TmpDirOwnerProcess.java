package io.sluice.tests.blocking;

import io.sluice.api.PartitionType;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.transport.ChildJvm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main class of the JVM that {@link SharedTmpDirTest} starts: an environment of its own on the shared temp
 * directory given as its argument, with one finished blocking partition. It prints {@code DIRECTORY <its
 * environment's directory>} and {@code DATA <the partition's data file>}, then lives until its stdin ends (the test
 * is done with it) or it is killed. Main thread only.
 */
public final class TmpDirOwnerProcess {

    private TmpDirOwnerProcess() {
    }

    /** Starts the child on {@code sharedTmpDir}; its stderr goes to {@code workDirectory}. */
    static ChildJvm start(Path sharedTmpDir, Path workDirectory) throws IOException {
        return ChildJvm.start(TmpDirOwnerProcess.class, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=128m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), workDirectory, sharedTmpDir.toString());
    }

    /** The configuration of the child's environment and of the test's on the same temp directory. */
    static ShuffleConfig config(Path sharedTmpDir) {
        return MemoryConfig.of(256, MemoryConfig.SMALL_SEGMENT).with(ShuffleOptions.TMP_DIRS, sharedTmpDir.toString());
    }

    public static void main(String[] args) throws Exception {
        Path shared = Path.of(args[0]);
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT, config(shared))) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            for (int i = 0; i < 100; i++) {
                writer.emitRecord(ByteBuffer.allocate(1000), 0);
            }
            writer.finish();
            writer.close(); // the data stays for its consumers
            Path data;
            try (Stream<Path> files = Files.walk(shared)) {
                data = files.filter(p -> p.toString().endsWith(".data")).findFirst().orElseThrow();
            }
            System.out.println("DIRECTORY " + data.getParent());
            System.out.println("DATA " + data);
            System.out.flush();
            while (System.in.read() >= 0) {
                // Lives until the test closes its stdin or kills it.
            }
        }
    }
}
