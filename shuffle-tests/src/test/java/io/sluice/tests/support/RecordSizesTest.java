package io.sluice.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ByteSizes;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecordSizesTest {

    @Test
    void fixedSize_alwaysPicksIt() {
        RecordSizes sizes = RecordSizes.parse("32k");
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 100; i++) {
            assertEquals(32768, sizes.sizeFor(random.nextLong()));
        }
        assertEquals(32768, sizes.min());
        assertEquals(32768, sizes.max());
    }

    @Test
    void range_picksEveryValueWithinItsBoundsOnly() {
        RecordSizes sizes = RecordSizes.parse("30..33");
        SplittableRandom random = new SplittableRandom(2);
        int[] seen = new int[4];
        for (int i = 0; i < 1000; i++) {
            seen[sizes.sizeFor(random.nextLong()) - 30]++;
        }
        for (int count : seen) {
            assertTrue(count > 150, "each size about 250 times: " + java.util.Arrays.toString(seen));
        }
        assertEquals(31.5, sizes.mean());
    }

    @Test
    void weights_setHowOftenEachSizeIsPicked() {
        RecordSizes sizes = RecordSizes.parse("100:3, 1k:1");
        SplittableRandom random = new SplittableRandom(3);
        int small = 0;
        for (int i = 0; i < 4000; i++) {
            if (sizes.sizeFor(random.nextLong()) == 100) {
                small++;
            }
        }
        assertTrue(small > 2800 && small < 3200, "about 3000 of 4000: " + small);
        assertEquals((3 * 100 + 1024) / 4.0, sizes.mean());
    }

    @Test
    void mixed_isTheDocumentedDefaultMix() {
        RecordSizes mixed = RecordSizes.parse("mixed");
        assertEquals(64, mixed.min());
        assertEquals(256 * 1024, mixed.max());
        assertEquals("mixed", mixed.toString());
        assertEquals(RecordSizes.parse(RecordSizes.MIXED).mean(), mixed.mean());
    }

    @Test
    void wrongSpecs_sayWhatIsWrongAndTheFormsAccepted() {
        assertMessage("10..5", "the range ends below its start");
        assertMessage("100:x", "weight 'x' in '100:x' is not a whole number");
        assertMessage("100:0", "weight 0 in '100:0' must be at least 1");
        assertMessage("100,200", "'100' in '100,200' has no weight");
        assertMessage("abc", "'abc' is not a byte size");
        assertMessage("3g", "size 3221225472 in '3g' is outside 0..");
    }

    @Test
    void byteSizes_takeBinaryUnitsAndRefuseTheRest() {
        assertEquals(4096, ByteSizes.parse("4096"));
        assertEquals(32 * 1024, ByteSizes.parse("32k"));
        assertEquals(32 * 1024, ByteSizes.parse("32KB"));
        assertEquals(64L << 20, ByteSizes.parse("64m"));
        assertEquals(4L << 30, ByteSizes.parse("4g"));
        assertEquals(512, ByteSizes.parse("512b"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("4x"));
        assertEquals("'4x' is not a byte size (unknown unit 'x'); use " + ByteSizes.FORMS, e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("-1"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("99999999999t"));
    }

    private static void assertMessage(String spec, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RecordSizes.parse(spec));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().contains("record sizes are SIZE"), e.getMessage());
    }
}
