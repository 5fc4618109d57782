package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gate persisting its data in flight end to end (docs/contract.md section 11), in-process and over each transport:
 * a remote channel hands the buffers it holds at the start, those it receives later as the consumer takes them, and
 * those its checkpoint's priority barrier overtook in the channel when the consumer takes the barrier; an in-process
 * channel hands what the consumer takes before the barrier (the data the barrier overtook in the producer's
 * subpartition is the producer's). The bytes handed are those the consumer got (checksums), and every segment is
 * back after close although the sink recycles its buffers only after the gate and the writer closed.
 */
@Timeout(120)
class GateInFlightDataTransportTest {

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void theDataBeforeTheBarrier_isHandedOnce_withTheConsumersBytes(String path) throws Exception {
        boolean remote = !"in-process".equals(path);
        ShuffleEnvironment environment = environments.startedEnvironment(path, EnvironmentFixture.config(256));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        RecordingSink sink = RecordingSink.keepingBuffers();

        // A: three buffers that reach the consumer's side before the checkpoint starts.
        EnvironmentFixture.emitWholeBuffers(writer, 0, 3);
        Await.until(() -> gate.metrics().queuedBuffers() == 3, "three buffers queued for the consumer");
        gate.startPersisting(TextElements.BARRIER, sink);
        assertEquals(remote ? 3 : 0, sink.persisted().size(), "a remote channel hands what it holds at the call");
        List<byte[]> a = take(gate, 3);

        // B: taken while persisting.
        EnvironmentFixture.emitWholeBuffers(writer, 3, 2);
        List<byte[]> b = take(gate, 2);
        assertEquals(5, sink.persisted().size(), "what the consumer took is handed as it takes it");

        // C: queued for the consumer when the barrier overtakes it; D: after the barrier.
        EnvironmentFixture.emitWholeBuffers(writer, 5, 2);
        Await.until(() -> gate.metrics().queuedBuffers() == 2, "two buffers queued for the consumer");
        writer.broadcastEvent(ByteBuffer.wrap("barrier".getBytes(StandardCharsets.UTF_8)), true);
        EnvironmentFixture.emitWholeBuffers(writer, 7, 2);
        writer.finish();
        Await.until(() -> gate.priorityEventWakeUpFuture().isDone(), "the barrier reached the consumer's side");
        BufferOrEvent barrier = gate.getNext().orElseThrow();
        assertTrue(barrier.isPriority(), "the barrier overtakes C: " + barrier);
        barrier.recycle();
        List<byte[]> c = take(gate, 2);
        List<byte[]> d = take(gate, 2);
        assertTrue(gate.getNext().isEmpty(), "the end");

        List<byte[]> expected = new ArrayList<>(a);
        expected.addAll(b);
        if (remote) {
            expected.addAll(c); // overtaken in the channel; in-process, in the producer's subpartition
        }
        List<byte[]> persisted = new ArrayList<>();
        for (RecordingSink.Persisted each : sink.persisted()) {
            persisted.add(each.bytes());
        }
        assertEquals(expected.size(), persisted.size());
        assertEquals(checksum(expected), checksum(persisted), "the persisted bytes are the consumer's, in order");
        assertEquals(9, a.size() + b.size() + c.size() + d.size());

        gate.close();
        writer.close();
        sink.recycleKept();
        // environments.close() (after each test) asserts that every segment is back.
    }

    /** Takes {@code count} data buffers, copying their bytes. Consumer thread. */
    private static List<byte[]> take(InputGate gate, int count) throws Exception {
        List<byte[]> taken = new ArrayList<>();
        while (taken.size() < count) {
            Optional<BufferOrEvent> next = gate.getNext();
            BufferOrEvent element = next.orElseThrow();
            assertTrue(!element.isEvent(), "data, not " + element);
            taken.add(TestRecords.bytesOf(element.data()));
            element.recycle();
        }
        return taken;
    }

    private static long checksum(List<byte[]> buffers) {
        CRC32 crc = new CRC32();
        for (byte[] buffer : buffers) {
            crc.update(buffer);
        }
        return crc.getValue();
    }
}
