package io.sluice.flink;

/** A Flink job asked for a partition type the Sluice shuffle does not carry; the message names the type. */
public final class UnsupportedPartitionTypeException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param message what was asked and what to change */
    public UnsupportedPartitionTypeException(String message) {
        super(message);
    }
}
