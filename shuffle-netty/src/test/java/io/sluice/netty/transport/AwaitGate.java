package io.sluice.netty.transport;

import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.testing.Await;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Reads a gate whose data arrives from another thread (an event loop), waiting on the gate's availability future
 * instead of polling; fails (never hangs) after {@link Await#EVENTUALLY}.
 *
 * <p>Stateless; call from the gate's consumer thread.
 */
final class AwaitGate {

    private AwaitGate() {
    }

    /** The gate's next element; the caller recycles it. */
    static BufferOrEvent next(InputGate gate) throws Exception {
        long deadline = System.nanoTime() + Await.EVENTUALLY.toNanos();
        while (System.nanoTime() - deadline < 0) {
            Optional<BufferOrEvent> next = gate.pollNext();
            if (next.isPresent()) {
                return next.get();
            }
            gate.availableFuture().get(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
        }
        return fail("nothing arrived within " + Await.EVENTUALLY.toSeconds() + " s");
    }

    /** The failure of type {@code type} the gate reports next; fails if it hands out an element instead. */
    static <T extends IOException> T failure(InputGate gate, Class<T> type) throws Exception {
        try {
            BufferOrEvent unexpected = next(gate);
            unexpected.recycle();
            return fail("expected " + type.getSimpleName() + ", read an element");
        } catch (IOException e) {
            if (!type.isInstance(e)) {
                throw new AssertionError("expected " + type.getSimpleName() + ", got " + e, e);
            }
            return type.cast(e);
        }
    }

    /** Reads (and recycles) what the gate hands out until {@code condition} holds. */
    static void readUntil(InputGate gate, BooleanSupplier condition, String what) {
        Await.until(() -> {
            try {
                gate.pollNext().ifPresent(BufferOrEvent::recycle);
            } catch (IOException e) {
                throw new AssertionError("reading failed while waiting until " + what, e);
            }
            return condition.getAsBoolean();
        }, what);
    }
}
