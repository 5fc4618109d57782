package io.sluice.flink;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ResourceId;
import io.sluice.netty.NettyShuffleServiceFactory;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions.CompressionCodec;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlinkConfigTranslatorTest {

    @Test
    void networkMemory_andSegmentSize_becomeSluicesMemory_andSluiceKeysPassThrough() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("16kb"));
        flink.setString("sluice.shuffle.netty.transport", "nio");
        flink.setString("sluice.shuffle.buffers-per-channel", "4");
        flink.setString("taskmanager.numberOfTaskSlots", "2");

        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(flink, 48L << 20);

        assertEquals(48L << 20, config.get(ShuffleOptions.MEMORY_TOTAL));
        assertEquals(16L << 10, config.get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
        assertEquals("nio", config.get(ShuffleOptions.NETTY_TRANSPORT));
        assertEquals(4, config.get(ShuffleOptions.BUFFERS_PER_CHANNEL));
        assertFalse(config.toMap().containsKey("taskmanager.numberOfTaskSlots"), "only sluice.* keys pass");
    }

    @Test
    void flushing_isLeftToFlinksBufferTimeout_unlessSluicesIntervalIsSet() {
        assertEquals(FlinkConfigTranslator.FLUSH_DRIVEN_BY_FLINK, FlinkConfigTranslator
                .environmentConfig(new Configuration(), 1L << 20).get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL));

        Configuration flink = new Configuration();
        flink.setString("sluice.shuffle.output.flush-interval", "5ms");
        assertEquals(Duration.ofMillis(5), FlinkConfigTranslator.environmentConfig(flink, 1L << 20)
                .get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
    }

    @Test
    void aMisspelledSluiceKey_failsTheEnvironment_namingTheKeyAndTheClosestOption() {
        Configuration flink = new Configuration();
        flink.setString("sluice.shuffle.memroy.total", "64m");
        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(flink, 8L << 20);

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> new NettyShuffleServiceFactory().createShuffleEnvironment(
                        ShuffleEnvironmentContext.of(config, new ResourceId("tm"))));

        assertTrue(failure.getMessage().contains("shuffle.memroy.total"), failure.getMessage());
        assertTrue(failure.getMessage().contains("shuffle.memory.total"), failure.getMessage());
    }

    @Test
    void flinksBufferDebloatOptions_becomeSluicesDebloatOptions_withSluicesOwnTimerOff() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_TARGET, Duration.ofMillis(300));
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_PERIOD, Duration.ofMillis(50));
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_THRESHOLD_PERCENTAGES, 40);
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_SAMPLES, 7);
        flink.set(TaskManagerOptions.MIN_MEMORY_SEGMENT_SIZE, MemorySize.parse("512b"));
        flink.set(TaskManagerOptions.STARTING_MEMORY_SEGMENT_SIZE, MemorySize.parse("4k"));

        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(flink, 1L << 20);

        assertTrue(config.get(ShuffleOptions.DEBLOAT_ENABLED));
        assertEquals(Duration.ofMillis(300), config.get(ShuffleOptions.DEBLOAT_TARGET));
        assertEquals(Duration.ZERO, config.get(ShuffleOptions.DEBLOAT_PERIOD),
                "Flink's StreamTask triggers the gates on its own period");
        assertEquals(40, config.get(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE));
        assertEquals(7, config.get(ShuffleOptions.DEBLOAT_SAMPLES));
        assertEquals(512L, config.get(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE));
        assertEquals(4096L, config.get(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE));
        assertCreatesAnEnvironment(config);
    }

    @Test
    void flinksDebloatDefaults_becomeSluicesDefaults_andDebloatingStaysOff() {
        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(new Configuration(), 1L << 20);

        assertFalse(config.get(ShuffleOptions.DEBLOAT_ENABLED));
        assertEquals(ShuffleOptions.DEBLOAT_TARGET.defaultValue(), config.get(ShuffleOptions.DEBLOAT_TARGET));
        assertEquals(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE.defaultValue(),
                config.get(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE));
        assertEquals(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE.defaultValue(),
                config.get(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE));
        assertEquals(ShuffleOptions.DEBLOAT_SAMPLES.defaultValue(), config.get(ShuffleOptions.DEBLOAT_SAMPLES));
        assertEquals(Duration.ZERO, config.get(ShuffleOptions.DEBLOAT_PERIOD));
        assertEquals(TaskManagerOptions.STARTING_MEMORY_SEGMENT_SIZE.defaultValue().getBytes(),
                config.get(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE), "a gate starts at 1 KiB, as Flink's");
    }

    @Test
    void flinksMinSegmentSizeBelowSluicesSmallestBuffer_isRaisedToIt() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        flink.set(TaskManagerOptions.MIN_MEMORY_SEGMENT_SIZE, MemorySize.parse("16b"));

        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(flink, 1L << 20);

        assertEquals(64L, config.get(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE));
        assertCreatesAnEnvironment(config);
    }

    @Test
    void sluicesOwnDebloatOptions_winOverThoseDerivedFromFlink() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_TARGET, Duration.ofMillis(300));
        flink.set(TaskManagerOptions.MIN_MEMORY_SEGMENT_SIZE, MemorySize.parse("16b"));
        flink.setString("sluice.shuffle.debloat.enabled", "false");
        flink.setString("sluice.shuffle.debloat.target", "2s");
        flink.setString("sluice.shuffle.debloat.period", "100ms");
        flink.setString("sluice.shuffle.debloat.min-buffer-size", "1k");
        flink.setString("sluice.shuffle.debloat.starting-buffer-size", "2k");
        flink.setString("sluice.shuffle.debloat.threshold-percentage", "10");
        flink.setString("sluice.shuffle.debloat.samples", "3");

        ShuffleConfig config = FlinkConfigTranslator.environmentConfig(flink, 1L << 20);

        assertFalse(config.get(ShuffleOptions.DEBLOAT_ENABLED));
        assertEquals(Duration.ofSeconds(2), config.get(ShuffleOptions.DEBLOAT_TARGET));
        assertEquals(Duration.ofMillis(100), config.get(ShuffleOptions.DEBLOAT_PERIOD));
        assertEquals(1024L, config.get(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE));
        assertEquals(2048L, config.get(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE));
        assertEquals(10, config.get(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE));
        assertEquals(3, config.get(ShuffleOptions.DEBLOAT_SAMPLES));
    }

    /** Sluice's environment accepts {@code config} (every value in its range) and closes cleanly. */
    private static void assertCreatesAnEnvironment(ShuffleConfig config) {
        new NettyShuffleServiceFactory().createShuffleEnvironment(
                ShuffleEnvironmentContext.of(config, new ResourceId("tm"))).close();
    }

    @Test
    void unalignedCheckpointsForTheWholeCluster_areAccepted_butCheckpointsDuringRecoveryAreRefused_namingTheOption() {
        Configuration flink = new Configuration();
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        flink.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        flink.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ofSeconds(2));
        FlinkConfigTranslator.masterConfig(flink);

        flink.set(FlinkConfigTranslator.CHECKPOINTING_DURING_RECOVERY, true);
        IllegalConfigurationException failure = assertThrows(IllegalConfigurationException.class,
                () -> FlinkConfigTranslator.masterConfig(flink));

        assertTrue(failure.getMessage().contains("execution.checkpointing.during-recovery.enabled: false"),
                failure.getMessage());
    }

    @Test
    void flinksDefaultShuffleCompression_lz4_becomesSluicesLz4() {
        assertEquals(CompressionCodec.LZ4, new Configuration().get(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC),
                "Flink compresses batch shuffles with LZ4 unless told otherwise");

        assertEquals("lz4", FlinkConfigTranslator.environmentConfig(new Configuration(), 1L << 20)
                .get(ShuffleOptions.COMPRESSION_CODEC));
    }

    @Test
    void flinksCompressionCodecNone_switchesSluicesCompressionOff() {
        Configuration flink = new Configuration();
        flink.set(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC, CompressionCodec.NONE);

        assertEquals("none", FlinkConfigTranslator.environmentConfig(flink, 1L << 20)
                .get(ShuffleOptions.COMPRESSION_CODEC));
    }

    @ParameterizedTest
    @EnumSource(value = CompressionCodec.class, names = {"LZO", "ZSTD"})
    void aCompressionCodecSluiceLacks_isRefusedAtStartup_onBothSides_namingTheCodec(CompressionCodec codec) {
        Configuration flink = new Configuration();
        flink.set(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC, codec);

        IllegalConfigurationException onTaskManager = assertThrows(IllegalConfigurationException.class,
                () -> FlinkConfigTranslator.environmentConfig(flink, 1L << 20));
        IllegalConfigurationException onJobManager = assertThrows(IllegalConfigurationException.class,
                () -> FlinkConfigTranslator.masterConfig(flink));

        for (IllegalConfigurationException failure : new IllegalConfigurationException[] {onTaskManager, onJobManager}) {
            assertTrue(failure.getMessage().contains("has no " + codec + " compression codec"), failure.getMessage());
            assertTrue(failure.getMessage().contains("taskmanager.network.compression.codec: LZ4"),
                    failure.getMessage());
        }
    }

    @Test
    void sluicesOwnCodecOption_winsOverFlinksCodec_evenOneSluiceLacks() {
        Configuration flink = new Configuration();
        flink.set(NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC, CompressionCodec.ZSTD);
        flink.setString("sluice.shuffle.compression.codec", "none");

        assertEquals("none", FlinkConfigTranslator.environmentConfig(flink, 1L << 20)
                .get(ShuffleOptions.COMPRESSION_CODEC));
        FlinkConfigTranslator.masterConfig(flink);
    }
}
