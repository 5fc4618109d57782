package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The one byte-size format of the configuration and the tools built on it. */
class ByteSizesTest {

    @Test
    void binaryUnits_withOrWithoutB_caseInsensitive() {
        assertEquals(4096, ByteSizes.parse("4096"));
        assertEquals(512, ByteSizes.parse("512b"));
        assertEquals(32 * 1024, ByteSizes.parse("32k"));
        assertEquals(32 * 1024, ByteSizes.parse("32KB"));
        assertEquals(64L << 20, ByteSizes.parse("64m"));
        assertEquals(4L << 30, ByteSizes.parse(" 4 g "));
        assertEquals(1L << 40, ByteSizes.parse("1tb"));
    }

    @Test
    void format_readsBackToTheSameSize() {
        for (String text : new String[] {"4095", "32k", "64m", "4g", "1t"}) {
            assertEquals(text, ByteSizes.format(ByteSizes.parse(text)));
        }
    }

    @Test
    void wrongText_isAnIllegalArgument_quotingIt_sayingWhy_listingTheForms() {
        IllegalArgumentException unit = assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("4x"));
        assertEquals("'4x' is not a byte size (unknown unit 'x'); use " + ByteSizes.FORMS, unit.getMessage());
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> ByteSizes.parse("99999999999t"));
        assertEquals("'99999999999t' is not a byte size (more than 2^63-1 bytes); use " + ByteSizes.FORMS,
                huge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("-1"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse(""));
    }
}
