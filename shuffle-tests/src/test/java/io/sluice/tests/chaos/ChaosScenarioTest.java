package io.sluice.tests.chaos;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChaosScenarioTest {

    @Test
    void aSeed_alwaysStandsForTheSameScenario() {
        for (long seed = 0; seed < 50; seed++) {
            assertEquals(ChaosScenario.fromSeed(seed).describe(), ChaosScenario.fromSeed(seed).describe());
        }
        assertNotEquals(ChaosScenario.fromSeed(1).describe(), ChaosScenario.fromSeed(2).describe());
    }

    @Test
    void aThousandSeeds_scheduleEveryKindOfFault_onBothTransports_andSomeRunClean() {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        Set<String> transports = new java.util.HashSet<>();
        int clean = 0;
        for (long seed = 0; seed < 1000; seed++) {
            ChaosScenario scenario = ChaosScenario.fromSeed(seed);
            transports.add(scenario.transport());
            assertTrue(scenario.environments() >= 2 && scenario.environments() <= 4, scenario.describe());
            if (scenario.faults().isEmpty()) {
                clean++;
            }
            for (Fault fault : scenario.faults()) {
                kinds.add(fault.kind());
            }
        }
        assertEquals(EnumSet.allOf(FaultKind.class), kinds);
        assertEquals(Set.of("local", "nio"), transports);
        assertTrue(clean > 100 && clean < 300, clean + " clean seeds of 1000");
    }
}
