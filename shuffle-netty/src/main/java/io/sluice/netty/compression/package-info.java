/**
 * {@code shuffle.compression.codec=lz4}: {@link io.sluice.netty.compression.BufferCompressor} compresses a data
 * buffer when that makes it smaller and restores it. Callers carry a "compressed" flag beside the bytes: the
 * transport in the BufferResponse header, blocking partitions in their buffer headers on disk. Events are never
 * compressed.
 *
 * <h2>Threads</h2>
 * Stateless apart from thread-safe LZ4 instances: any thread.
 */
package io.sluice.netty.compression;
