package io.sluice.bench.options;

/**
 * A record to damage on purpose ({@code --corrupt-record}), to show that verification catches it.
 * Immutable value.
 *
 * @param channel the record channel: producer x consumers + consumer
 * @param sequence the record's sequence number within its channel
 */
public record CorruptRecord(int channel, long sequence) {
}
