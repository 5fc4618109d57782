/**
 * Verifiable records for tests and the benchmark: {@code RecordGenerator} makes the records of
 * one channel, laid out as {@code RecordFormat} says (channel, sequence number, timestamp,
 * CRC32C checksum, deterministic payload) with sizes from {@code RecordSizes};
 * {@code RecordVerifier} checks what a gate received and throws a
 * {@code RecordVerificationException} naming the channel at the first record lost, reordered
 * or damaged. {@code Wiring} connects producers and consumers through the public API as an
 * engine would, and {@code ThrowawayPki} makes the throw-away certificate authority of TLS runs.
 *
 * <h2>Threads</h2>
 * A generator is owned by one producer thread and a verifier by the consumer thread of its gate; neither is
 * thread-safe. Formats, sizes, {@code Wiring} and a made {@code ThrowawayPki} are immutable or stateless and may be
 * shared.
 */
package io.sluice.tests.support;
