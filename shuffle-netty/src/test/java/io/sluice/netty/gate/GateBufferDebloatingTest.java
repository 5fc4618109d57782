package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.testing.EnvironmentFixture;
import io.sluice.netty.testing.TestRecords;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Buffer debloating end to end (docs/contract.md section 10), in-process and over each transport: a gate that
 * consumes slowly shrinks the buffers its producer cuts, and grows them back once it consumes fast; every record
 * arrives whole, once and in order whatever the cuts; announcements racing with the buffers being filled corrupt
 * nothing; with debloating off nothing changes; every segment is back after close.
 */
@Timeout(120)
class GateBufferDebloatingTest {

    private static final int SEGMENT = (int) EnvironmentFixture.SEGMENT_SIZE;
    private static final int MIN_BUFFER_SIZE = 256;
    /** {@code shuffle.debloat.starting-buffer-size}'s default. */
    private static final int DEFAULT_STARTING_SIZE = 1024;
    /**
     * How long the slow consumer pauses after each buffer: a pace, not a wait for anything. It bounds the measured
     * throughput from above (at most a segment per pause, however slow the machine), so that the size the gate
     * derives from it is below a segment.
     */
    private static final long SLOW_PACE_MILLIS = 50;

    private final EnvironmentFixture environments = new EnvironmentFixture();

    @AfterEach
    void closeAndCheckForLeaks() {
        environments.close();
    }

    /**
     * A segment per {@link #SLOW_PACE_MILLIS} is at most 82 KB/s: with a target of 10 ms and nothing queued at the
     * trigger, at most 820 bytes a buffer. Read at full speed, the gate measures a throughput far above that and
     * the size grows (at most doubling per sample). The gate starts at a whole segment.
     */
    private static ShuffleConfig debloating(ShuffleConfig config) {
        return config.with(ShuffleOptions.DEBLOAT_ENABLED, true)
                .with(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE, (long) SEGMENT)
                .with(ShuffleOptions.DEBLOAT_PERIOD, Duration.ZERO)
                .with(ShuffleOptions.DEBLOAT_TARGET, Duration.ofMillis(10))
                .with(ShuffleOptions.DEBLOAT_SAMPLES, 1)
                .with(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE, 0)
                .with(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE, (long) MIN_BUFFER_SIZE);
    }

    /** One environment whose gate reads its own producer in-process, or over the named transport. */
    private ShuffleEnvironment environment(String path, ShuffleConfig config) throws Exception {
        return environments.startedEnvironment(path, config);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void aSlowConsumerShrinksTheBuffers_andAFastOneGrowsThemBack_recordsIntact(String path) throws Exception {
        ShuffleEnvironment environment = environment(path, debloating(EnvironmentFixture.config(256)));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        BlockingQueue<String> fromConsumer = new LinkedBlockingQueue<>();
        writer.onTaskEvent(event -> fromConsumer.add(StandardCharsets.UTF_8.decode(event).toString()));
        InputGate gate = environments.setUpGate(environment, 0, writer);
        Stream stream = new Stream();

        // The producer writes each phase only once the consumer said "go": by then the size the consumer announced
        // before it has reached the producer (over the transport, the task event follows it on the same connection).
        BackgroundTask<Long> producer = BackgroundTask.start("producer", () -> {
            CRC32 checksum = new CRC32();
            int next = emit(writer, 0, 240, checksum); // six segments and a bit
            writer.broadcastEvent(utf8("A"), false);
            assertEquals("go", fromConsumer.poll(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS));
            next = emit(writer, next, 200, checksum);
            writer.broadcastEvent(utf8("B"), false);
            assertEquals("go", fromConsumer.poll(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS));
            emit(writer, next, 200, checksum);
            writer.finish();
            return checksum.getValue();
        });

        gate.triggerDebloating(); // starts the measurement
        List<Integer> slow = stream.readUntilEvent(gate, "A", SLOW_PACE_MILLIS);
        gate.triggerDebloating();
        int shrunk = gate.debloatedBufferSize();
        assertTrue(shrunk >= MIN_BUFFER_SIZE && shrunk < SEGMENT, "after buffers " + slow + ": " + shrunk);

        gate.sendTaskEvent(utf8("go"));
        List<Integer> small = stream.readUntilEvent(gate, "B", 0);
        assertTrue(small.size() > 2, "" + small);
        for (int size : small) {
            assertTrue(size <= shrunk, "a buffer of " + size + " bytes after " + shrunk + " was announced: " + small);
        }
        gate.triggerDebloating();
        int grown = gate.debloatedBufferSize();
        assertTrue(grown > shrunk && grown <= SEGMENT, "after reading " + small + " at full speed: " + grown);

        gate.sendTaskEvent(utf8("go"));
        List<Integer> large = stream.readUntilEvent(gate, null, 0);
        assertEquals(grown, large.stream().mapToInt(Integer::intValue).max().orElseThrow(), "" + large);

        assertEquals(producer.await(), stream.assertRecords(640), "checksum of the records");
        gate.close();
    }

    /**
     * A gate starts at the starting size (1 KiB by default, as Flink's
     * {@code taskmanager.memory.starting-segment-size}), not at whole segments: under backpressure at the start of a
     * job, its producers' queues then hold small buffers until the gate has measured enough to grow them.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void atSetup_theGateAnnouncesTheStartingSize_andItsProducerCutsNoLargerBuffers(String path) throws Exception {
        assertEveryBufferWithinTheStartingSize(path, 0);
    }

    /**
     * What a producer writes before its consumer's request (no gate has announced anything to it yet) is cut at the
     * starting size too, when the producer's environment debloats: a job's first checkpoints then find no whole
     * segments queued ahead of their barriers.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void beforeItsConsumersRequest_aDebloatingProducerCutsBuffersAtTheStartingSize(String path) throws Exception {
        assertEveryBufferWithinTheStartingSize(path, 40); // about 4 KB: a few buffers, within the partition's pool
    }

    /**
     * Emits {@code beforeTheGate} of 200 records before the gate's setup and the rest once the gate's announcement
     * has reached the producer (over a transport, the task event follows it on the same connection); checks that
     * the gate reports the default starting size and that no buffer is larger.
     */
    private void assertEveryBufferWithinTheStartingSize(String path, int beforeTheGate) throws Exception {
        ShuffleEnvironment environment = environment(path, debloating(EnvironmentFixture.config(256))
                .with(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE,
                        ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE.defaultValue()));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        BlockingQueue<String> fromConsumer = new LinkedBlockingQueue<>();
        writer.onTaskEvent(event -> fromConsumer.add(StandardCharsets.UTF_8.decode(event).toString()));
        CRC32 checksum = new CRC32();
        emit(writer, 0, beforeTheGate, checksum);

        InputGate gate = environments.setUpGate(environment, 0, writer);
        BackgroundTask<Long> producer = BackgroundTask.start("producer", () -> {
            assertEquals("go", fromConsumer.poll(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS));
            emit(writer, beforeTheGate, 200 - beforeTheGate, checksum);
            writer.finish();
            return checksum.getValue();
        });
        assertEquals(DEFAULT_STARTING_SIZE, gate.debloatedBufferSize());
        gate.sendTaskEvent(utf8("go"));
        Stream stream = new Stream();
        List<Integer> sizes = stream.readUntilEvent(gate, null, 0);

        assertTrue(sizes.size() >= 200 * 100 / DEFAULT_STARTING_SIZE, "" + sizes);
        for (int size : sizes) {
            assertTrue(size <= DEFAULT_STARTING_SIZE, "a buffer of " + size + " bytes: " + sizes);
        }
        assertEquals(producer.await(), stream.assertRecords(200), "checksum of the records");
        gate.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in-process", "nio", "epoll", "local"})
    void announcementsRacingWithTheBuffersBeingFilled_corruptNothing(String path) throws Exception {
        ShuffleEnvironment environment = environment(path, debloating(EnvironmentFixture.config(256)));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        SingleInputGate gate = (SingleInputGate) environments.setUpGate(environment, 0, writer);
        int records = 800;
        BackgroundTask<Long> producer = BackgroundTask.start("producer", () -> {
            CRC32 checksum = new CRC32();
            for (int i = 0; i < records; i++) {
                byte[] record = TestRecords.recordBytes(0, i, racingLength(i));
                writer.emitRecord(ByteBuffer.wrap(record), 0);
                checksum.update(record);
                if (i % 97 == 0) {
                    writer.flushAll();
                }
            }
            writer.finish();
            return checksum.getValue();
        });

        // Sizes below the minimum, within, and above a segment, announced while the producer fills buffers.
        Random random = new Random(7);
        Stream stream = new Stream();
        List<Integer> sizes = new ArrayList<>();
        for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
            sizes.add(stream.take(next.get()));
            if (sizes.size() % 3 == 0) {
                gate.channel(0).announceBufferSize(1 + random.nextInt(2 * SEGMENT));
            }
        }

        for (int size : sizes) {
            assertTrue(size <= SEGMENT, "" + size);
        }
        long checksum = stream.assertRecords(records, GateBufferDebloatingTest::racingLength);
        assertEquals(producer.await(), checksum, "checksum of the records");
        gate.close();
    }

    @Test
    void withDebloatingOff_triggeringChangesNothing_andBuffersFillSegments() throws Exception {
        ShuffleEnvironment environment = environment("in-process", EnvironmentFixture.config(64));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        BackgroundTask<Long> producer = BackgroundTask.start("producer", () -> {
            CRC32 checksum = new CRC32();
            emit(writer, 0, 200, checksum);
            writer.finish();
            return checksum.getValue();
        });

        Stream stream = new Stream();
        gate.triggerDebloating();
        List<Integer> sizes = stream.readUntilEvent(gate, null, 0);
        gate.triggerDebloating();

        assertEquals(0, gate.debloatedBufferSize());
        assertEquals(SEGMENT, sizes.get(0), "" + sizes);
        assertEquals(producer.await(), stream.assertRecords(200));
        gate.close();
    }

    @Test
    void theEnvironmentsTimer_triggersDebloating_whenThePeriodIsSet() throws Exception {
        ShuffleEnvironment environment = environment("in-process", debloating(EnvironmentFixture.config(256))
                .with(ShuffleOptions.DEBLOAT_PERIOD, Duration.ofMillis(5)));
        ResultPartitionWriter writer = environments.setUpWriter(environment, 1);
        InputGate gate = environments.setUpGate(environment, 0, writer);
        AtomicBoolean stop = new AtomicBoolean();
        BackgroundTask<Long> producer = BackgroundTask.start("producer", () -> {
            CRC32 checksum = new CRC32();
            int next = 0;
            while (!stop.get()) {
                next = emit(writer, next, 40, checksum);
                writer.flushAll();
            }
            writer.finish();
            return checksum.getValue();
        });

        Stream stream = new Stream();
        long deadline = System.nanoTime() + Await.EVENTUALLY.toNanos();
        while (gate.debloatedBufferSize() == SEGMENT && System.nanoTime() < deadline) {
            Optional<BufferOrEvent> next = gate.getNext();
            assertTrue(next.isPresent(), "the stream ended early");
            stream.take(next.get());
            Thread.sleep(SLOW_PACE_MILLIS / 5); // a pace that keeps the throughput low, not a wait
        }
        stop.set(true);
        int announced = gate.debloatedBufferSize();
        stream.readUntilEvent(gate, null, 0);

        assertTrue(announced >= MIN_BUFFER_SIZE && announced < SEGMENT, "announced by the timer: " + announced);
        long checksum = producer.await();
        assertFalse(stream.records().isEmpty());
        assertEquals(checksum, stream.assertRecords(stream.records().size()));
        gate.close();
    }

    /** Record {@code i}'s length: 1 to 200 bytes, so records span the small buffers. */
    private static int length(int i) {
        return 1 + (i * 37) % 200;
    }

    /** Record {@code i}'s length in the racing test: 1 to 6000 bytes, some spanning segments. */
    private static int racingLength(int i) {
        return 1 + (i * 7919) % 6000;
    }

    /** Emits records {@code from} to {@code from + count - 1}; returns the next record number. */
    private static int emit(ResultPartitionWriter writer, int from, int count, CRC32 checksum) throws Exception {
        for (int i = from; i < from + count; i++) {
            byte[] record = TestRecords.recordBytes(0, i, length(i));
            writer.emitRecord(ByteBuffer.wrap(record), 0);
            checksum.update(record);
        }
        return from + count;
    }

    private static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /** What the consumer took: the data bytes of every buffer in order. Test thread only. */
    private static final class Stream {

        private final ByteArrayOutputStream data = new ByteArrayOutputStream();

        /** Takes one element: a data buffer's bytes (returning its size) or an event (returning -1). Recycles it. */
        int take(BufferOrEvent element) {
            try {
                if (element.isEvent()) {
                    return -1;
                }
                byte[] bytes = TestRecords.bytesOf(element.data());
                data.writeBytes(bytes);
                return bytes.length;
            } finally {
                element.recycle();
            }
        }

        /**
         * Reads data buffers until the user event {@code text} (or the end, for null), pausing {@code paceMillis}
         * after each buffer; returns the sizes of the buffers.
         */
        List<Integer> readUntilEvent(InputGate gate, String text, long paceMillis) throws Exception {
            List<Integer> sizes = new ArrayList<>();
            for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
                BufferOrEvent element = next.get();
                if (element.isEvent()) {
                    String event = StandardCharsets.UTF_8.decode(element.data()).toString();
                    element.recycle();
                    assertEquals(text, event, "after buffers " + sizes);
                    return sizes;
                }
                sizes.add(take(element));
                if (paceMillis > 0) {
                    Thread.sleep(paceMillis); // a pace that bounds the throughput, not a wait
                }
            }
            assertEquals(null, text, "the stream ended before event " + text);
            return sizes;
        }

        List<byte[]> records() {
            return TestRecords.decodeFramed(data.toByteArray());
        }

        /** Checks the records 0 to {@code count - 1} of {@link #length}; returns their checksum. */
        long assertRecords(int count) {
            return assertRecords(count, GateBufferDebloatingTest::length);
        }

        long assertRecords(int count, java.util.function.IntUnaryOperator lengths) {
            List<byte[]> records = records();
            assertEquals(count, records.size(), "records");
            CRC32 checksum = new CRC32();
            for (int i = 0; i < count; i++) {
                assertArrayEquals(TestRecords.recordBytes(0, i, lengths.applyAsInt(i)), records.get(i), "record " + i);
                checksum.update(records.get(i));
            }
            return checksum.getValue();
        }
    }
}
