/**
 * The environment's temporary directories for blocking partitions:
 * {@link io.sluice.netty.file.FileChannelManager} makes one directory per environment under each of
 * {@code shuffle.tmp-dirs}, holds a lock in each for the environment's life, hands them out round-robin, deletes them
 * at close and by a shutdown hook, and deletes the directories of the same user whose lock is free (their process is
 * gone). No Netty here.
 *
 * <h2>Threads</h2>
 * Any thread: the directories are fixed at construction, the round-robin counter is atomic, close is idempotent.
 */
package io.sluice.netty.file;
