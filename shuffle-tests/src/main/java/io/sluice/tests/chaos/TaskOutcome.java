package io.sluice.tests.chaos;

/**
 * How one producer or consumer of a chaos run ended. Immutable value; any thread.
 *
 * @param task    e.g. {@code producer 2}
 * @param ended   false when it was still running at the deadline
 * @param error   what it failed with, or null when it completed (a producer that failed itself as scheduled
 *                completed)
 * @param records records it emitted (a producer) or read (a consumer)
 */
public record TaskOutcome(String task, boolean ended, Throwable error, long records) {

    /** @return true for a producer, false for a consumer */
    public boolean producer() {
        return task.startsWith("producer");
    }

    @Override
    public String toString() {
        return task + (producer() ? " emitted " : " read ") + records + " records and "
                + (!ended ? "was stuck" : error == null ? "completed" : "failed: " + error);
    }
}
