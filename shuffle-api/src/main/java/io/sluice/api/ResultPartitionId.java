package io.sluice.api;

import java.io.Serializable;
import java.util.UUID;

/**
 * 128-bit identity of one result partition; {@link #toString()} is 32 lower-case hex digits
 * (upper half first) and {@link #fromString(String)} reads them back. Immutable value; any thread.
 *
 * @param upper the high 64 bits
 * @param lower the low 64 bits
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record ResultPartitionId(long upper, long lower) implements Serializable {

    /** Hex digits of one 64-bit half. */
    private static final int HALF_DIGITS = 16;

    /** @return a new id from a cryptographically strong random source (a random UUID's bits) */
    public static ResultPartitionId random() {
        UUID uuid = UUID.randomUUID();
        return new ResultPartitionId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /**
     * Parses the form {@link #toString()} produces.
     *
     * @param hex exactly 32 hex digits, either case
     * @return the id
     * @throws IllegalArgumentException when {@code hex} is not 32 hex digits
     */
    public static ResultPartitionId fromString(String hex) {
        if (hex == null || hex.length() != 2 * HALF_DIGITS) {
            throw new IllegalArgumentException("Cannot parse '" + hex
                    + "' as a ResultPartitionId: expected " + 2 * HALF_DIGITS + " hex digits");
        }
        try {
            long upper = Long.parseUnsignedLong(hex.substring(0, HALF_DIGITS), 16);
            long lower = Long.parseUnsignedLong(hex.substring(HALF_DIGITS), 16);
            return new ResultPartitionId(upper, lower);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Cannot parse '" + hex
                    + "' as a ResultPartitionId: not hex digits", e);
        }
    }

    /** @return 32 lower-case hex digits, upper half first */
    @Override
    public String toString() {
        return String.format("%016x%016x", upper, lower);
    }
}
