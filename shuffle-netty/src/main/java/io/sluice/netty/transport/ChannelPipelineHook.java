package io.sluice.netty.transport;

import io.netty.channel.Channel;

/**
 * Internal seam for tests and tools, not part of the API contract: sees every channel of an environment's transport
 * once Sluice has built its pipeline, and may add handlers to it (to inject faults, trace frames or measure). An
 * environment built without one ({@link #NONE}) runs exactly the pipeline it would run anyway: the data path has no
 * branch for it.
 *
 * <p>Handler names a hook may place its handlers against: client channels {@code decoder}, {@code encoder},
 * {@code credit} (the {@link CreditBasedClientHandler}); server channels {@code decoder}, {@code encoder},
 * {@code requests}, {@code queue}. Handlers other features add (TLS, heartbeats) may sit around them.
 *
 * <p>Threads: called on the channel's event loop, from its {@code ChannelInitializer}; must not block. A handler a
 * hook adds follows Netty's rules: whatever message it holds back it must pass on or release.
 */
public interface ChannelPipelineHook {

    /** Adds nothing. */
    ChannelPipelineHook NONE = new ChannelPipelineHook() {
    };

    /**
     * @param channel a connection the data server accepted, its pipeline complete and not yet registered for reads
     */
    default void serverChannelInitialized(Channel channel) {
    }

    /**
     * @param channel a connection the client opened to another environment's data server, its pipeline complete
     */
    default void clientChannelInitialized(Channel channel) {
    }
}
