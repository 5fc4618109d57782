package io.sluice.tests;

import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleException;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Events are bounded in size on both sides (the data server sizes its frame limit from it): a task event larger than
 * {@link ResultPartitionWriter#MAX_EVENT_BYTES} is refused at the gate, as a larger broadcast event is at the writer.
 */
class EventSizeLimitTest {

    @Test
    void taskEvent_largerThanTheLimit_isRefusedAtTheGate() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Layout.ONE_ENVIRONMENT,
                MemoryConfig.of(16, MemoryConfig.SMALL_SEGMENT))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            shuffle.createWriter("producer", partition).setup();
            InputGate gate = shuffle.createGate("consumer", 0, partition);
            gate.setup();
            shuffle.reader(gate);

            ShuffleException refused = assertThrows(ShuffleException.class,
                    () -> gate.sendTaskEvent(ByteBuffer.allocate(ResultPartitionWriter.MAX_EVENT_BYTES + 1)));

            assertTrue(refused.getMessage().contains("task event"), refused.getMessage());
        }
    }
}
