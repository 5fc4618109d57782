package io.sluice.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class DiskLimitsTest {

    @Test
    void median_ofThreeRuns_isTheMiddleRate_whateverTheirOrder() {
        double[] rates = {2.7e9, 1.4e9, 1.9e9};

        assertEquals(1.9e9, DiskLimits.median(rates));
        assertArrayEquals(new double[] {2.7e9, 1.4e9, 1.9e9}, rates, "the runs are left in their order");
    }

    @Test
    void median_ofAnEvenNumberOfRuns_isTheMeanOfTheMiddleTwo() {
        assertEquals(1.5e9, DiskLimits.median(new double[] {2.0e9, 1.0e9, 1.4e9, 1.6e9}));
    }
}
