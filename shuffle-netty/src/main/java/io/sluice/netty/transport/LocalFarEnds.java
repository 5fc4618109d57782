package io.sluice.netty.transport;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * The far ends of one environment's connections on the local transport: the channels of other environments in this
 * JVM that its channels are connected to, while they are open.
 *
 * <p>Why: Netty's {@code LocalChannel} checks that the far end is connected and then queues the frame there, so a
 * frame can land in a channel that closed (and emptied its queue) in between. Netty releases such a frame only when
 * the writing end closes too, by a task it runs on the closed end's event loop; an environment whose event loops
 * stopped first rejects that task and the frame leaks. {@link ConnectionManager#close()} therefore waits for the far
 * ends {@link #awaitClosed} before it stops its event loops.
 *
 * <p>Both ends are recorded when the data server accepts a connection: the consumer's channel becomes a far end of
 * the producer's environment, and the accepted channel one of the consumer's (found through the instance the
 * consumer's environment put on its client channel, {@link #clientOpened}). Any thread: the set is a
 * {@link ChannelGroup}, which a channel leaves when it closes.
 */
final class LocalFarEnds {

    /** On a client channel of the local transport: the far ends of the environment that opened it. */
    private static final AttributeKey<LocalFarEnds> OF_CLIENT = AttributeKey.valueOf(LocalFarEnds.class, "farEnds");

    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /** A client channel this environment opened; before it connects. Event loop of the channel. */
    void clientOpened(Channel client) {
        client.attr(OF_CLIENT).set(this);
    }

    /**
     * A channel this environment's data server accepted, registered: its consumer's channel is a far end here, and it
     * is one of the consumer's environment. Event loop of the accepted channel.
     */
    void accepted(Channel accepted) {
        Channel consumer = LocalDataServerChannel.consumerOf(accepted);
        if (consumer == null) {
            return;
        }
        channels.add(consumer);
        LocalFarEnds consumers = consumer.attr(OF_CLIENT).get();
        if (consumers != null) {
            consumers.channels.add(accepted);
        }
    }

    /**
     * Waits until every far end open now has closed.
     *
     * @return false when some had not within {@code waitMillis}
     */
    boolean awaitClosed(long waitMillis) {
        return channels.newCloseFuture().awaitUninterruptibly(waitMillis);
    }
}
