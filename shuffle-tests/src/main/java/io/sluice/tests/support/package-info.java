/**
 * Verifiable records for tests and the benchmark: {@code RecordGenerator} makes the records of
 * one channel, laid out as {@code RecordFormat} says (channel, sequence number, timestamp,
 * CRC32C checksum, deterministic payload) with sizes from {@code RecordSizes};
 * {@code RecordVerifier} checks what a gate received and throws a
 * {@code RecordVerificationException} naming the channel at the first record lost, reordered
 * or damaged. {@code ByteSizes} reads byte sizes.
 *
 * <h2>Threads</h2>
 * A generator is owned by one producer thread and a verifier by the consumer thread of its gate; neither is
 * thread-safe. Formats, sizes and parsers are immutable or stateless and may be shared.
 */
package io.sluice.tests.support;
