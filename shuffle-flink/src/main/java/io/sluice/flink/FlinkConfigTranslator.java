package io.sluice.flink;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions.CompressionCodec;
import org.apache.flink.configuration.TaskManagerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;

/**
 * Turns a Flink configuration into Sluice's: Flink's network memory becomes {@code shuffle.memory.total}, Flink's
 * segment size {@code shuffle.memory.segment-size}, Flink's shuffle compression codec
 * ({@code taskmanager.network.compression.codec}) {@code shuffle.compression.codec}, and every key
 * {@code sluice.<option>} passes through as {@code <option>} (for example {@code sluice.shuffle.netty.transport:
 * epoll}), overriding what was derived from Flink's options. Sluice's own periodic flush is
 * switched off unless configured: Flink's {@code execution.buffer-timeout} drives {@code flushAll} through Flink's
 * output flusher, as it does on Flink's own shuffle. Flink's buffer debloating options
 * ({@code taskmanager.network.memory.buffer-debloat.*}, {@code taskmanager.memory.min-segment-size},
 * {@code taskmanager.memory.starting-segment-size}) become
 * {@code shuffle.debloat.*}, with Sluice's own debloating timer off: Flink's StreamTask calls
 * {@code triggerDebloating()} on every gate on its own period. Also refuses the Flink features Sluice cannot carry,
 * naming the option to change. Stateless; any thread.
 */
final class FlinkConfigTranslator {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkConfigTranslator.class);

    /** Prefix of the Flink keys that pass through to Sluice. */
    static final String PREFIX = "sluice.";

    /**
     * Sluice's automatic flush when the user configures none: effectively never, so that Flink's buffer timeout
     * alone decides when partly filled buffers go out.
     */
    static final Duration FLUSH_DRIVEN_BY_FLINK = Duration.ofDays(1);

    /**
     * Sluice's debloating period: none of its own, because Flink's StreamTask triggers every gate's debloating on
     * {@code taskmanager.network.memory.buffer-debloat.period}.
     */
    static final Duration DEBLOAT_DRIVEN_BY_FLINK = Duration.ZERO;

    /** The smallest buffer size Sluice announces ({@code shuffle.debloat.min-buffer-size}'s lower bound). */
    static final long SMALLEST_DEBLOATED_BUFFER = 64;

    private FlinkConfigTranslator() {
    }

    /** The configuration of the shuffle master: the pass-through keys only. */
    static ShuffleConfig masterConfig(Configuration flink) {
        rejectUnsupported(flink);
        return passThrough(flink, ShuffleConfig.empty());
    }

    /**
     * The configuration of one TaskManager's environment.
     *
     * @param networkMemoryBytes the network memory Flink gives the TaskManager's shuffle
     * @throws IllegalConfigurationException when the configuration enables what Sluice does not support
     */
    static ShuffleConfig environmentConfig(Configuration flink, long networkMemoryBytes) {
        rejectUnsupported(flink);
        ShuffleConfig config = ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, networkMemoryBytes)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, flink.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE).getBytes())
                .with(ShuffleOptions.OUTPUT_FLUSH_INTERVAL, FLUSH_DRIVEN_BY_FLINK);
        if (!setsSluiceCodec(flink)) {
            config = config.with(ShuffleOptions.COMPRESSION_CODEC, compressionCodec(flink));
        }
        return passThrough(flink, debloating(flink, config));
    }

    /** Whether {@code sluice.shuffle.compression.codec} is set: then it decides, whatever Flink's codec says. */
    private static boolean setsSluiceCodec(Configuration flink) {
        return flink.containsKey(PREFIX + ShuffleOptions.COMPRESSION_CODEC.key());
    }

    /**
     * Sluice's codec for Flink's {@code taskmanager.network.compression.codec}: {@code LZ4} (Flink's default) is
     * {@code lz4}, {@code NONE} is {@code none}.
     *
     * @throws IllegalConfigurationException for a codec Sluice does not have (LZO, ZSTD), naming it
     */
    static String compressionCodec(Configuration flink) {
        CompressionCodec codec = flink.get(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC);
        switch (codec) {
            case NONE:
                return "none";
            case LZ4:
                return "lz4";
            default:
                throw new IllegalConfigurationException(UnsupportedFeatures.compressionCodec(codec));
        }
    }

    /**
     * Flink's buffer debloating options as Sluice's, with Sluice's timer off ({@link #DEBLOAT_DRIVEN_BY_FLINK}).
     * Flink's smallest buffer ({@code taskmanager.memory.min-segment-size}) below Sluice's smallest is raised to it,
     * and so is Flink's starting size ({@code taskmanager.memory.starting-segment-size}), at which a gate starts as
     * Flink's do (1 KiB by default, not whole segments).
     */
    private static ShuffleConfig debloating(Configuration flink, ShuffleConfig config) {
        long minBufferSize = flink.get(TaskManagerOptions.MIN_MEMORY_SEGMENT_SIZE).getBytes();
        if (minBufferSize < SMALLEST_DEBLOATED_BUFFER
                && !flink.containsKey(PREFIX + ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE.key())) {
            LOG.info("{} is {} bytes; Sluice's debloated buffers are at least {} bytes, so {} is {}",
                    TaskManagerOptions.MIN_MEMORY_SEGMENT_SIZE.key(), minBufferSize, SMALLEST_DEBLOATED_BUFFER,
                    ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE.key(), SMALLEST_DEBLOATED_BUFFER);
        }
        return config
                .with(ShuffleOptions.DEBLOAT_ENABLED, flink.get(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED))
                .with(ShuffleOptions.DEBLOAT_TARGET, flink.get(TaskManagerOptions.BUFFER_DEBLOAT_TARGET))
                .with(ShuffleOptions.DEBLOAT_PERIOD, DEBLOAT_DRIVEN_BY_FLINK)
                .with(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE, Math.max(SMALLEST_DEBLOATED_BUFFER, minBufferSize))
                .with(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE, Math.max(SMALLEST_DEBLOATED_BUFFER,
                        flink.get(TaskManagerOptions.STARTING_MEMORY_SEGMENT_SIZE).getBytes()))
                .with(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE,
                        flink.get(TaskManagerOptions.BUFFER_DEBLOAT_THRESHOLD_PERCENTAGES))
                .with(ShuffleOptions.DEBLOAT_SAMPLES, flink.get(TaskManagerOptions.BUFFER_DEBLOAT_SAMPLES));
    }

    private static ShuffleConfig passThrough(Configuration flink, ShuffleConfig config) {
        ShuffleConfig result = config;
        for (Map.Entry<String, String> entry : flink.toMap().entrySet()) {
            if (entry.getKey().startsWith(PREFIX)) {
                result = result.with(entry.getKey().substring(PREFIX.length()), entry.getValue());
            }
        }
        return result;
    }

    /**
     * Flink 2.3's experimental {@code execution.checkpointing.during-recovery.enabled}, declared here because Flink
     * 2.2 has no such option.
     */
    static final ConfigOption<Boolean> CHECKPOINTING_DURING_RECOVERY =
            ConfigOptions.key("execution.checkpointing.during-recovery.enabled").booleanType().defaultValue(false);

    /** Fails for cluster-wide settings Sluice cannot honour; per-job ones are caught per task. */
    static void rejectUnsupported(Configuration flink) {
        if (flink.get(CHECKPOINTING_DURING_RECOVERY)) {
            throw new IllegalConfigurationException(UnsupportedFeatures.checkpointingDuringRecovery());
        }
        if (!setsSluiceCodec(flink)) {
            compressionCodec(flink);
        }
    }
}
