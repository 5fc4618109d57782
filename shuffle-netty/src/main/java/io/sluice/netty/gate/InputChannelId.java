package io.sluice.netty.gate;

import java.io.Serializable;
import java.util.UUID;

/**
 * 128-bit identity of one input channel on the receiving side of a connection: the producer tags every
 * {@code BufferResponse} with it so that the consumer's client handler can route the data to its channel.
 * {@link #toString()} is 32 lower-case hex digits, upper half first. Immutable value; any thread.
 *
 * @param upper the high 64 bits
 * @param lower the low 64 bits
 */
public record InputChannelId(long upper, long lower) implements Serializable {

    /** @return a new id from a cryptographically strong random source (a random UUID's bits) */
    public static InputChannelId random() {
        UUID uuid = UUID.randomUUID();
        return new InputChannelId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /** @return 32 lower-case hex digits, upper half first */
    @Override
    public String toString() {
        return String.format("%016x%016x", upper, lower);
    }
}
