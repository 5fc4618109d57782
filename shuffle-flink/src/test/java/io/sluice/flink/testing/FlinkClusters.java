package io.sluice.flink.testing;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;

import java.time.Duration;

/**
 * MiniClusters for the Flink tests: 2 TaskManagers x 2 slots (two TaskManagers, so that exchanges cross the
 * transport as well as staying in-process), small network memory, on Flink's default shuffle or on Sluice.
 * Test thread only.
 */
public final class FlinkClusters {

    /** TaskManagers of every cluster. */
    public static final int TASK_MANAGERS = 2;
    /** Slots of each TaskManager. */
    public static final int SLOTS = 2;
    /** Parallelism that fills the cluster. */
    public static final int PARALLELISM = TASK_MANAGERS * SLOTS;

    private static final String LOOPBACK = "127.0.0.1";

    private FlinkClusters() {
    }

    /** Which shuffle a cluster runs. */
    public enum Shuffle {
        /** Flink's own Netty shuffle. */
        FLINK,
        /** Sluice, through {@link RecordingShuffleServiceFactory}. */
        SLUICE
    }

    /**
     * The job options of the fault tests: checkpoints every 100 ms, and up to 5 restarts 200 ms apart (each fault
     * costs one).
     */
    public static Configuration checkpointedJobWithRestarts() {
        Configuration job = new Configuration();
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        return job;
    }

    /** A started cluster with the given shuffle; the caller closes it. */
    public static MiniCluster start(Shuffle shuffle) throws Exception {
        return start(shuffle, new Configuration());
    }

    /** A started cluster with the given shuffle and extra cluster options; the caller closes it. */
    public static MiniCluster start(Shuffle shuffle, Configuration extra) throws Exception {
        Configuration config = new Configuration();
        // Loopback and OS-chosen ports only.
        config.set(RestOptions.BIND_ADDRESS, LOOPBACK);
        config.set(RestOptions.ADDRESS, LOOPBACK);
        config.set(RestOptions.BIND_PORT, "0");
        config.set(JobManagerOptions.ADDRESS, LOOPBACK);
        config.set(TaskManagerOptions.HOST, LOOPBACK);
        config.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("16m"));
        config.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("16m"));
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        if (shuffle == Shuffle.SLUICE) {
            RecordingShuffleServiceFactory.clear();
            config.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS,
                    RecordingShuffleServiceFactory.class.getName());
            config.setString("sluice.shuffle.netty.server-threads", "1");
            config.setString("sluice.shuffle.netty.client-threads", "1");
            config.setString("sluice.shuffle.partition-request.max-backoff", "2s");
        }
        config.addAll(extra);
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(config)
                .setNumTaskManagers(TASK_MANAGERS)
                .setNumSlotsPerTaskManager(SLOTS)
                .build());
        cluster.start();
        return cluster;
    }
}
