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
    void bufferDebloating_isRefused_namingTheOptionToTurnOff() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);

        IllegalConfigurationException failure = assertThrows(IllegalConfigurationException.class,
                () -> FlinkConfigTranslator.environmentConfig(flink, 1L << 20));

        assertTrue(failure.getMessage().contains("taskmanager.network.memory.buffer-debloat.enabled: false"),
                failure.getMessage());
    }

    @Test
    void unalignedCheckpointsForTheWholeCluster_areRefusedAtStartup_namingTheOption() {
        Configuration flink = new Configuration();
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        flink.set(CheckpointingOptions.ENABLE_UNALIGNED, true);

        IllegalConfigurationException failure = assertThrows(IllegalConfigurationException.class,
                () -> FlinkConfigTranslator.masterConfig(flink));

        assertTrue(failure.getMessage().contains("execution.checkpointing.unaligned.enabled: false"),
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
