package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one duration format of the configuration and the tools built on it. */
class DurationsTest {

    @Test
    void everyUnit_isRead_caseInsensitive_bareNumberIsMilliseconds() {
        assertEquals(Duration.ofNanos(7), Durations.parse("7ns"));
        assertEquals(Duration.ofNanos(500_000), Durations.parse("500us"));
        assertEquals(Duration.ofMillis(250), Durations.parse("250"));
        assertEquals(Duration.ofMillis(250), Durations.parse(" 250 MS "));
        assertEquals(Duration.ofSeconds(30), Durations.parse("30s"));
        assertEquals(Duration.ofSeconds(30), Durations.parse("30sec"));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2min"));
        assertEquals(Duration.ofHours(3), Durations.parse("3h"));
        assertEquals(Duration.ofDays(1), Durations.parse("1d"));
    }

    @Test
    void format_readsBackToTheSameDuration() {
        for (String text : new String[] {"7ns", "500us", "250ms", "30s", "2min", "3h"}) {
            assertEquals(text, Durations.format(Durations.parse(text)));
        }
    }

    @Test
    void wrongText_isAnIllegalArgument_quotingIt_sayingWhy_listingTheForms() {
        IllegalArgumentException unit = assertThrows(IllegalArgumentException.class, () -> Durations.parse("5 weeks"));
        assertEquals("'5 weeks' is not a duration (unknown unit 'weeks'); use " + Durations.FORMS, unit.getMessage());
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class, () -> Durations.parse("soon"));
        assertEquals("'soon' is not a duration (no leading number); use " + Durations.FORMS, word.getMessage());
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> Durations.parse("999999999999999999d"));
        assertEquals("'999999999999999999d' is not a duration (too long); use " + Durations.FORMS, huge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("-1s"));
    }
}
