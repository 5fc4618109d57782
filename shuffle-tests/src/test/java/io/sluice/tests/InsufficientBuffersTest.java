package io.sluice.tests;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.nio.ByteBuffer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer that cannot get the buffers it needs fails {@code setup()} with {@link InsufficientBuffersException}
 * saying how many it needed, how many were free and what to raise, and keeps nothing.
 */
class InsufficientBuffersTest {

    private static final int SEGMENTS = 4;
    private static final String OPTION_TO_RAISE = Pattern.quote(ShuffleOptions.MEMORY_TOTAL.key());
    /** "3 free" or "free 3" / "free: 3". */
    private static final Pattern FREE_COUNT = Pattern.compile("\\b(\\d+) free\\b|\\bfree:? (\\d+)\\b");
    private static final ShuffleConfig CONFIG = MemoryConfig.of(SEGMENTS, MemoryConfig.SMALL_SEGMENT);

    @EveryLayout
    void writerNeedingMoreBuffersThanTheEnvironmentHas_failsSetup_andKeepsNothing(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition tooWide = shuffle.registerPartition(8);
            ResultPartitionWriter writer = shuffle.createWriter("producer", tooWide);

            InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, writer::setup);

            // One buffer per subpartition plus one: 9 required, 4 free.
            assertMatches(failure.getMessage(), "\\b9 buffers\\b", "the number required");
            assertMatches(failure.getMessage(), "\\b8 subpartitions\\b", "how that number is made up");
            assertFreeCount(failure.getMessage(), 4);
            assertMatches(failure.getMessage(), OPTION_TO_RAISE, "the option to raise");
            assertNothingReserved(shuffle.producerEnvironment());
            // What the failed writer did not keep, a writer that fits can take.
            assertWriterWorks(shuffle, 3);
        }
    }

    @EveryLayout
    void writerThatDoesNotFitBesideAnother_failsSetup_andFitsOnceTheOtherIsReleased(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            ResultPartitionWriter first = shuffle.createWriter("first producer", shuffle.registerPartition(2));
            first.setup(); // reserves 3 of the 4 segments
            ResultPartitionWriter second = shuffle.createWriter("second producer", shuffle.registerPartition(1));

            InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, second::setup);

            assertMatches(failure.getMessage(), "\\b2 buffers\\b", "the number required");
            assertMatches(failure.getMessage(), OPTION_TO_RAISE, "the option to raise");
            first.close();
            assertNothingReserved(shuffle.producerEnvironment());
            assertWriterWorks(shuffle, 1);
        }
    }

    @EveryLayout
    void insufficientBuffersMessage_countsAsFreeOnlyWhatOtherWritersHaveNotReserved(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            shuffle.createWriter("first producer", shuffle.registerPartition(2)).setup(); // reserves 3 of 4
            ResultPartitionWriter second = shuffle.createWriter("second producer", shuffle.registerPartition(1));

            InsufficientBuffersException failure = assertThrows(InsufficientBuffersException.class, second::setup);

            assertFreeCount(failure.getMessage(), 1);
        }
    }

    private static void assertNothingReserved(ShuffleEnvironment environment) {
        ShuffleMetrics metrics = environment.metrics();
        String name = environment.resourceId().value();
        assertEquals(metrics.totalSegments(), metrics.availableSegments(), "free segments of " + name);
        assertTrue(environment.partitionsOccupyingLocalResources().isEmpty(),
                "partitions occupying " + name + ": " + environment.partitionsOccupyingLocalResources());
    }

    /** Sets up a writer of that many subpartitions and sends one record through each. */
    private static void assertWriterWorks(ShuffleFixture shuffle, int subpartitions) throws Exception {
        RegisteredPartition partition = shuffle.registerPartition(subpartitions);
        ResultPartitionWriter writer = shuffle.createWriter("fitting producer", partition);
        writer.setup();
        writer.broadcastRecord(ByteBuffer.wrap(new byte[] {42}));
        writer.finish();
        for (int s = 0; s < subpartitions; s++) {
            RecordReader reader = shuffle.setUpReader("consumer " + s, s, partition);
            RecordOrEvent record = reader.next();
            assertNotNull(record, "the record of consumer " + s);
            assertEquals(ByteBuffer.wrap(new byte[] {42}), record.data(), "the record of consumer " + s);
            assertNull(reader.next(), "consumer " + s + " after its record");
        }
    }

    /** Every "N free" (or "free N") the message states must be the number of segments really free. */
    private static void assertFreeCount(String message, int free) {
        Matcher claims = FREE_COUNT.matcher(message);
        int found = 0;
        while (claims.find()) {
            String count = claims.group(1) != null ? claims.group(1) : claims.group(2);
            assertEquals(free, Integer.parseInt(count), "the free buffers the message states: " + message);
            found++;
        }
        assertTrue(found > 0, "the message should say how many buffers are free, but it is: " + message);
    }

    private static void assertMatches(String message, String regex, String what) {
        assertTrue(Pattern.compile(regex).matcher(message).find(),
                "the message should give " + what + " (/" + regex + "/), but it is: " + message);
    }
}
