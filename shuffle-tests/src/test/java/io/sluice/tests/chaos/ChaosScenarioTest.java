package io.sluice.tests.chaos;

import io.sluice.api.PartitionType;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChaosScenarioTest {

    private static final int SEEDS = 1000;
    /** Seeds 0 to 999, drawn once for the tests that survey them. */
    private static final List<ChaosScenario> SCENARIOS = LongStream.range(0, SEEDS)
            .mapToObj(ChaosScenario::fromSeed).toList();

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
        Set<String> transports = new HashSet<>();
        int clean = 0;
        for (ChaosScenario scenario : SCENARIOS) {
            transports.add(scenario.transport());
            int environments = scenario.environments();
            assertTrue(scenario.largeGate() ? environments >= 2 && environments <= 5
                    : environments >= 2 && environments <= 4, scenario::describe);
            if (scenario.faults().isEmpty()) {
                clean++;
            }
            for (Fault fault : scenario.faults()) {
                kinds.add(fault.kind());
            }
        }
        assertEquals(EnumSet.allOf(FaultKind.class), kinds);
        assertEquals(Set.of("local", "nio"), transports);
        assertTrue(clean > 100 && clean < 300, clean + " clean seeds of " + SEEDS);
    }

    @Test
    void aShareOfSeeds_haveBlockingPartitions_storedAndReadEveryWay() {
        int allBlocking = 0;
        int someBlocking = 0;
        Set<String> codecs = new HashSet<>();
        Set<String> zeroCopy = new HashSet<>();
        Set<Integer> readBuffers = new HashSet<>();
        for (ChaosScenario scenario : SCENARIOS) {
            if (scenario.allBlocking()) {
                allBlocking++;
            } else if (scenario.anyBlocking()) {
                someBlocking++;
            }
            if (scenario.anyBlocking()) {
                codecs.add(scenario.codec());
                zeroCopy.add(scenario.zeroCopy());
                readBuffers.add(scenario.readBuffers());
            } else {
                assertEquals("none", scenario.codec(), scenario::describe);
            }
        }
        assertTrue(allBlocking > 150 && someBlocking > 50 && allBlocking + someBlocking < 500,
                allBlocking + " seeds all blocking, " + someBlocking + " some, of " + SEEDS);
        assertEquals(Set.of("none", "lz4"), codecs);
        assertEquals(Set.of("auto", "always", "never"), zeroCopy);
        assertTrue(readBuffers.contains(0) && readBuffers.contains(1), "read memory in segments: " + readBuffers);
    }

    @Test
    void faultsOfBlockingPartitions_hitOnlyWhereTheyCan() {
        for (ChaosScenario scenario : SCENARIOS) {
            for (Fault fault : scenario.faults()) {
                if (fault.kind().atRest()) {
                    assertTrue(scenario.blocking(fault.actor()), "damages a pipelined partition: " + fault);
                    assertTrue(fault.at() >= 0, "a negative selector: " + fault);
                }
                if (fault.kind() == FaultKind.CORRUPT_COMPRESSED_BLOCK) {
                    assertEquals("lz4", scenario.codec(), () -> "no compressed block to damage: " + scenario.describe());
                }
                if (fault.kind() == FaultKind.READER_STALL) {
                    // A stalled reader would hold up a pipelined producer, and with it every other consumer.
                    assertTrue(scenario.allBlocking() && scenario.consumers() > 1, scenario::describe);
                }
            }
        }
    }

    @Test
    void aFewSeedsInAHundred_areLargeGates_ofThousandsOfOneSubpartitionPartitions() {
        int large = 0;
        for (ChaosScenario scenario : SCENARIOS) {
            if (!scenario.largeGate()) {
                continue;
            }
            large++;
            assertEquals(1, scenario.consumers(), scenario::describe);
            assertTrue(scenario.producers() >= 1_000 && scenario.producers() <= 4_000, scenario::describe);
            assertEquals(PartitionType.PIPELINED_BOUNDED, scenario.partitionTypes()[0]);
            int consumerEnvironment = scenario.consumerEnvironment()[0];
            int[] partitions = new int[scenario.environments()];
            for (int env : scenario.producerEnvironment()) {
                assertNotEquals(consumerEnvironment, env, () -> "every channel is remote: " + scenario.describe());
                partitions[env]++;
            }
            for (int count : partitions) {
                assertTrue(count <= 1_000, "partitions of one environment: " + count);
            }
        }
        assertTrue(large >= 5 && large <= 40, large + " large gates of " + SEEDS);
    }
}
