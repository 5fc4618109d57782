package io.sluice.tests.chaos;

/**
 * How one producer or consumer of a chaos run ended. Immutable value; any thread.
 *
 * @param task    e.g. {@code producer 2}
 * @param ended   true once its thread is done
 * @param error   what it failed with, or null when it completed (a producer that failed itself as scheduled
 *                completed)
 * @param detail  for a consumer, records read; for a producer, records emitted
 */
record TaskOutcome(String task, boolean ended, Throwable error, long detail) {
}
