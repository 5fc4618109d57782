package io.sluice.netty.transport;

import io.netty.channel.DefaultFileRegion;
import io.sluice.netty.partition.SharedFileChannel;

/**
 * A {@link DefaultFileRegion} over a reader's shared open handle of a data file: the region does not open or close
 * the file, it holds one reference of the handle and releases it when Netty releases the region (written, or
 * dropped with a closed connection). It stays a {@code DefaultFileRegion}, so the epoll transport still sends it
 * with {@code sendfile}, and nio with {@code FileChannel.transferTo}.
 *
 * <p>Owned by the event loop that writes it, like any message.
 */
final class SharedFileRegion extends DefaultFileRegion {

    private final SharedFileChannel file;

    /**
     * @param file a reference of the handle that this region takes over (released in {@link #deallocate()})
     */
    SharedFileRegion(SharedFileChannel file, long position, long count) {
        super(file.channel(), position, count);
        this.file = file;
    }

    /** Drops the region's reference instead of closing the channel: the handle's last reference closes it. */
    @Override
    protected void deallocate() {
        file.release();
    }
}
