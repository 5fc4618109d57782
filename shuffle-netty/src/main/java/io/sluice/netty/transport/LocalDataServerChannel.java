package io.sluice.netty.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultChannelPipeline;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data server of the local transport: Netty's {@link LocalServerChannel}, except that a connection handed to it
 * after it closed is refused at once instead of dropped.
 *
 * <p>Why: a consumer's local connect first finds the server in Netty's local registry, then hands it the accepted
 * channel through the server's event loop. When the producer's environment closes the server in between, the
 * accepted channel reaches the closed server's emptied pipeline and Netty drops it, so nothing would complete the
 * consumer's connect (found by {@code ProducerEnvironmentClosedWhileConnectingTest}). This closes the consumer's
 * channel instead, which fails its connect with a {@code ClosedChannelException}, as if the producer had closed it.
 * {@link LocalConnectTimeout} stays as the bound for any other lost connect.
 *
 * <p>Event loop of the server, like every {@link LocalServerChannel}. Not final: a test closes it in that window.
 */
public class LocalDataServerChannel extends LocalServerChannel {

    private static final Logger LOG = LoggerFactory.getLogger(LocalDataServerChannel.class);

    /** Made by the server bootstrap. */
    public LocalDataServerChannel() {
    }

    /**
     * @param accepted a channel a {@code LocalDataServerChannel} accepted
     * @return the consumer's channel it is connected to, or null for any other channel
     */
    static Channel consumerOf(Channel accepted) {
        return accepted instanceof Accepted known ? known.consumer : null;
    }

    @Override
    protected LocalChannel newLocalChannel(LocalChannel peer) {
        return new Accepted(this, peer);
    }

    @Override
    protected DefaultChannelPipeline newChannelPipeline() {
        return new RefusingPipeline(this);
    }

    /** An accepted channel that knows the consumer's channel it was made for. Event loop of the server. */
    private static final class Accepted extends LocalChannel {

        private final LocalChannel consumer;

        Accepted(LocalServerChannel server, LocalChannel consumer) {
            super(server, consumer);
            this.consumer = consumer;
        }

        /** Closes this never registered channel and the consumer's: its connect fails instead of waiting. */
        void refuse() {
            unsafe().closeForcibly();
            consumer.close();
        }
    }

    /** The server's pipeline; what reaches its tail once the acceptor is gone is an accepted channel to refuse. */
    private static final class RefusingPipeline extends DefaultChannelPipeline {

        RefusingPipeline(Channel server) {
            super(server);
        }

        @Override
        protected void onUnhandledInboundMessage(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Accepted accepted) {
                LOG.debug("Refusing {}: it reached the data server {} after the server closed", accepted,
                        channel());
                accepted.refuse();
                return;
            }
            super.onUnhandledInboundMessage(ctx, msg);
        }
    }
}
