package io.sluice.netty.transport;

import io.netty.util.ReferenceCounted;

/**
 * A response that is {@link ReferenceCounted} through the payload it carries (a buffer, an LZ4 block or a file
 * region), so that Netty releases a response it writes or drops exactly as it would release a {@code ByteBuf}. The
 * subclasses say how their payload counts; the one-argument forms and {@code touch} (payloads here keep no leak
 * records) are the same for both and live here. The thread rules are the subclass's.
 *
 * @param <M> the response type, returned by {@code retain} and {@code touch}
 */
public abstract sealed class CountedResponse<M extends CountedResponse<M>> implements NettyMessage, ReferenceCounted
        permits BufferResponse, StoredBuffersResponse {

    CountedResponse() {
    }

    @Override
    public abstract M retain(int increment);

    @Override
    public abstract boolean release(int decrement);

    /** Adds one reference to the payload (none without a payload). */
    @Override
    public final M retain() {
        return retain(1);
    }

    @Override
    public final M touch() {
        return self();
    }

    @Override
    public final M touch(Object hint) {
        return self();
    }

    /**
     * Drops one reference of the payload (nothing without a payload).
     *
     * @return true when that was the payload's last reference
     */
    @Override
    public final boolean release() {
        return release(1);
    }

    @SuppressWarnings("unchecked") // M is this class by the type's declaration
    private M self() {
        return (M) this;
    }
}
