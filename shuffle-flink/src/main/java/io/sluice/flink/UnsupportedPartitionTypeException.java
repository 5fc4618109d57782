package io.sluice.flink;

/**
 * A Flink job asked for a partition type the Sluice shuffle does not carry; the message names the type. Fails the
 * job without a restart, as every {@link UnsupportedFeatureException} does.
 */
public final class UnsupportedPartitionTypeException extends UnsupportedFeatureException {

    private static final long serialVersionUID = 1L;

    /** @param message what was asked and what to change */
    public UnsupportedPartitionTypeException(String message) {
        super(message);
    }
}
