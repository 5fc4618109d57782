package io.sluice.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The loop the union runs over its gates: every one is called, the first failure wins, the others are kept. */
class EveryOneTest {

    @Test
    void everyElementIsCalled_theFirstFailureIsThrown_withTheLaterOnesSuppressed() {
        List<Integer> called = new ArrayList<>();

        IOException thrown = assertThrows(IOException.class, () -> EveryOne.apply(List.of(0, 1, 2, 3),
                IOException.class, null, i -> {
                    called.add(i);
                    if (i % 2 == 1) {
                        throw new IOException("element " + i);
                    }
                }));

        assertEquals(List.of(0, 1, 2, 3), called);
        assertEquals("element 1", thrown.getMessage());
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals("element 3", thrown.getSuppressed()[0].getMessage());
    }

    @Test
    void withAPrimaryFailure_everyFailureIsSuppressedInIt_andNothingIsThrown() {
        IOException primary = new IOException("setup failed");
        IllegalStateException first = new IllegalStateException("close 0");
        IllegalStateException second = new IllegalStateException("close 1");
        List<IllegalStateException> failures = List.of(first, second);

        EveryOne.apply(List.of(0, 1), RuntimeException.class, primary, i -> {
            throw failures.get(i);
        });

        assertArrayEquals(new Throwable[] {first, second}, primary.getSuppressed());
    }

    @Test
    void anUncheckedFailureOfAnotherType_endsTheLoopAtOnce() {
        List<Integer> called = new ArrayList<>();
        IllegalArgumentException bug = new IllegalArgumentException("not an I/O failure");

        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> EveryOne.apply(List.of(0, 1), IOException.class, null, i -> {
                    called.add(i);
                    throw bug;
                }));

        assertSame(bug, thrown);
        assertEquals(List.of(0), called);
    }
}
