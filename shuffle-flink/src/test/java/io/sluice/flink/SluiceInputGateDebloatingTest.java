package io.sluice.flink;

import io.sluice.api.InputGate;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Flink's buffer debloating on a Sluice gate: Flink's StreamTask calls {@code triggerDebloating()} on every gate on
 * its own period, and the Flink gate hands each call to the Sluice gate under it, which measures and announces.
 */
class SluiceInputGateDebloatingTest {

    @Test
    void triggerDebloating_reachesTheSluiceGate_andTheSizeItAnnouncedIsReadFromIt() {
        RecordingGate sluice = new RecordingGate(512);
        SluiceInputGate gate = flinkGateOver(sluice.proxy());

        gate.triggerDebloating();
        gate.triggerDebloating();

        assertEquals(2, sluice.triggers.get(), "each of Flink's calls reaches Sluice's gate");
        assertEquals(512, gate.debloatedBufferSize());
    }

    /** A Flink gate of one channel over {@code sluice}, built as the environment builds one. */
    private static SluiceInputGate flinkGateOver(InputGate sluice) {
        ResultPartitionID[] partitions = {new ResultPartitionID(new IntermediateResultPartitionID(),
                ExecutionAttemptID.randomId())};
        int[] subpartitions = {0};
        return new SluiceInputGate("consumer", 0, ResultPartitionType.PIPELINED_BOUNDED, sluice, new int[] {0},
                subpartitions, subpartitions, hooks -> FlinkChannelStandIns.create("consumer", 0,
                        new IntermediateDataSetID(), ResultPartitionType.PIPELINED_BOUNDED, partitions, subpartitions,
                        hooks),
                new RecoveredInput(sluice, new int[] {0}, 4096, 2), new SimpleCounter());
    }

    /** A Sluice gate that counts debloating triggers and reports a fixed announced size; nothing else is called. */
    private static final class RecordingGate {

        final AtomicInteger triggers = new AtomicInteger();
        private final int announcedSize;

        RecordingGate(int announcedSize) {
            this.announcedSize = announcedSize;
        }

        InputGate proxy() {
            return (InputGate) Proxy.newProxyInstance(InputGate.class.getClassLoader(),
                    new Class<?>[] {InputGate.class}, (self, method, args) -> {
                        switch (method.getName()) {
                            case "triggerDebloating":
                                triggers.incrementAndGet();
                                return null;
                            case "debloatedBufferSize":
                                return announcedSize;
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }
    }
}
