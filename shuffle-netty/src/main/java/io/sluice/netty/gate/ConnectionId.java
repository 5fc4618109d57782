package io.sluice.netty.gate;

import io.sluice.api.ResourceId;

import java.net.InetSocketAddress;

/**
 * One TCP connection of a consumer environment: every channel that reads from the same producer address with the
 * same connection index shares it.
 *
 * @param address         the producer environment's data address
 * @param connectionIndex lets an engine spread channels to one producer over several connections
 * @param producerId      the producer environment, for error messages
 */
public record ConnectionId(InetSocketAddress address, int connectionIndex, ResourceId producerId) {

    @Override
    public String toString() {
        return "producer " + producerId.value() + " at " + address + " (connection " + connectionIndex + ")";
    }
}
