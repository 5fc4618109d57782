package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code shuffle.input.spin-wait} reaches the gates an environment creates: with it, a consumer's first wait spins
 * before it parks; without it (the default), it parks at once.
 */
@Timeout(60)
class GateSpinWaitOptionTest {

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    @ParameterizedTest(name = "spin-wait {0}: spins {1}")
    @CsvSource({"0ms, 0", "1ms, 1"})
    void environmentsGate_spinsInItsFirstWait_exactlyWhenTheOptionIsSet(String spinWait, int spins)
            throws Exception {
        ShuffleEnvironment environment = environments.localEnvironment(
                EnvironmentFixture.config(64).with(ShuffleOptions.INPUT_SPIN_WAIT.key(), spinWait));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        SingleInputGate gate = (SingleInputGate) environments.setUpGate(environment, 0, writer);
        BackgroundTask<Integer> consumer = BackgroundTask.start("consumer", () -> {
            BufferOrEvent next = gate.getNext().orElseThrow();
            int bytes = next.data().remaining();
            next.recycle();
            return bytes;
        });
        Await.blocked(consumer.thread()); // parked: after its spin of 1 ms ran out, or at once

        writer.emitRecord(TestRecords.record(0, 0, EnvironmentFixture.ONE_BUFFER_RECORD), 0);

        assertEquals(EnvironmentFixture.ONE_BUFFER_RECORD + 4, consumer.await(), "the framed record, in one buffer");
        assertEquals(spins, gate.spinMisses(), "the spin before the park");
        assertEquals(0, gate.spinHits(), "the record came after the consumer parked");
        writer.close();
        gate.close();
    }
}
