package io.sluice.buffers;

import java.util.function.Consumer;

/**
 * Runs an action for every element even when some of them fail, so that one failing listener or pool cannot
 * leave the others un-notified. The first failure is rethrown at the end with later ones suppressed in it.
 * Stateless; any thread.
 */
final class EveryOne {

    private EveryOne() {
    }

    static <T> void apply(Iterable<T> elements, Consumer<T> action) {
        RuntimeException failure = null;
        for (T element : elements) {
            try {
                action.accept(element);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
