/**
 * The environment's temporary directories for blocking partitions:
 * {@link io.sluice.netty.file.FileChannelManager} makes one directory per environment under each of
 * {@code shuffle.tmp-dirs}, hands them out round-robin, deletes them at close and by a shutdown hook, and deletes
 * the directories that crashed processes of the same user left behind. No Netty here.
 *
 * <h2>Threads</h2>
 * Any thread: the directories are fixed at construction, the round-robin counter is atomic, close is idempotent.
 */
package io.sluice.netty.file;
