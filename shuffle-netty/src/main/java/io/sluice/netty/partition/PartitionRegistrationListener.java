package io.sluice.netty.partition;

/**
 * Waits for a partition that a reader asked for before its producer registered it.
 *
 * <p>Called on the registering producer's thread, with no manager lock held; must not block.
 */
@FunctionalInterface
public interface PartitionRegistrationListener {

    /** The awaited partition was registered; the listener was removed before this call. */
    void onPartitionRegistered(RegisteredPartition partition);
}
