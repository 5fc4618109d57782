package io.sluice.tests.chaos;

import io.netty.channel.Channel;
import io.sluice.netty.transport.ChannelPipelineHook;

import java.net.SocketAddress;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Puts a {@link FaultInjectingHandler} right after the decoder of every client connection of one environment.
 * Stateless apart from what it was given; called on event loops.
 */
final class ChaosPipelineHook implements ChannelPipelineHook {

    private final List<Fault> faults;
    private final int environment;
    private final ToIntFunction<SocketAddress> serverEnvironment;
    private final Consumer<Fault> onFired;

    ChaosPipelineHook(List<Fault> faults, int environment, ToIntFunction<SocketAddress> serverEnvironment,
                      Consumer<Fault> onFired) {
        this.faults = faults;
        this.environment = environment;
        this.serverEnvironment = serverEnvironment;
        this.onFired = onFired;
    }

    @Override
    public void clientChannelInitialized(Channel channel) {
        channel.pipeline().addAfter("decoder", "chaos-faults",
                new FaultInjectingHandler(faults, environment, serverEnvironment, onFired));
    }
}
