package io.sluice.api;

/**
 * Runs an action on every element even when some of them fail, so that one failing gate cannot leave the others
 * without the call (a close, a task event). Failures of the collected type are kept: added as suppressed to a
 * primary failure the caller already has, or else the first is thrown at the end with the later ones suppressed in
 * it. Any other exception, necessarily unchecked, ends the loop at once. Stateless; any thread.
 */
final class EveryOne {

    /** An action on one element that may throw {@code E}. */
    @FunctionalInterface
    interface Action<T, E extends Exception> {
        void run(T element) throws E;
    }

    private EveryOne() {
    }

    /**
     * @param elements  the elements, each given to {@code action} once, in order
     * @param collected the failures that do not stop the loop
     * @param primary   a failure the caller is already throwing, which takes the collected ones as suppressed; or
     *                  null, and the first collected failure is thrown with the later ones suppressed in it
     * @param action    what to do with each element
     * @throws E the first collected failure, when {@code primary} is null
     */
    static <T, E extends Exception> void apply(Iterable<T> elements, Class<E> collected, Throwable primary,
                                               Action<? super T, ? extends E> action) throws E {
        E failure = null;
        for (T element : elements) {
            try {
                action.run(element);
            } catch (Exception e) {
                if (!collected.isInstance(e)) {
                    throw (RuntimeException) e; // the action throws only E, so anything else is unchecked
                }
                E caught = collected.cast(e);
                if (primary != null) {
                    primary.addSuppressed(caught);
                } else if (failure == null) {
                    failure = caught;
                } else {
                    failure.addSuppressed(caught);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
