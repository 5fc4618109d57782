package io.sluice.tests.transport;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;

import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A consumer's task event travels upstream over the transport to the producer of every partition its gate reads,
 * byte for byte, even when the consumer reuses its buffer right after sending; the data keeps flowing downstream.
 */
class RemoteTaskEventTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    private static final byte[] EVENT = "end of superstep 42".getBytes(StandardCharsets.UTF_8);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE);
    private static final int RECORDS = 500;
    private static final long SEED = 0x7A5CL;

    @EveryTransport
    void taskEventFromARemoteGate_reachesTheProducerOfEveryChannel_byteForByte(Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition[] partitions = {shuffle.registerPartition(1), shuffle.registerPartition(1)};
            ResultPartitionWriter[] writers = new ResultPartitionWriter[partitions.length];
            List<CompletableFuture<byte[]>> received = new ArrayList<>();
            for (int p = 0; p < partitions.length; p++) {
                writers[p] = Endpoints.setUpWriter(shuffle, "producer " + p, partitions[p]);
                CompletableFuture<byte[]> event = new CompletableFuture<>();
                received.add(event);
                // Transport thread: the listener may read the buffer only during the call, so it copies.
                writers[p].onTaskEvent(buffer -> {
                    byte[] bytes = new byte[buffer.remaining()];
                    buffer.get(bytes);
                    event.complete(bytes);
                });
            }
            InputGate gate = shuffle.createGate("consumer", 0, partitions);
            gate.setup();
            RecordReader reader = shuffle.reader(gate);

            ByteBuffer event = ByteBuffer.wrap(EVENT.clone());
            gate.sendTaskEvent(event);
            // The caller owns its buffer again as soon as sendTaskEvent returns.
            event.clear().put(new byte[EVENT.length]);

            for (int p = 0; p < partitions.length; p++) {
                assertArrayEquals(EVENT, received.get(p).get(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS),
                        "the task event producer " + p + " received");
            }
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0, 1});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            for (int p = 0; p < partitions.length; p++) {
                RecordTraffic.emit(writers[p], 0, new RecordGenerator(p, SEED, SIZES), RECORDS);
                writers[p].finish();
            }
            assertEquals(partitions.length * RECORDS, consumer.await(Await.EVENTUALLY), "records read after the event");
            for (int p = 0; p < partitions.length; p++) {
                verifier.endOfChannel(p, RECORDS);
            }
        }
    }
}
