package io.sluice.bench.jmh;

import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The path records take between producer and consumer in a benchmark: TCP over loopback between
 * two environments (the Netty transport the library picks, or NIO or epoll explicitly), Netty's
 * in-JVM local transport between two environments, or in-process channels inside one environment.
 */
enum Link {
    /** Loopback TCP, transport "auto" (epoll where available, else NIO). */
    TCP("auto", 2),
    /** Loopback TCP with NIO. */
    NIO("nio", 2),
    /** Loopback TCP with epoll (Linux). */
    EPOLL("epoll", 2),
    /** Netty's in-JVM local transport: the network path without a socket. */
    LOCAL("local", 2),
    /** One environment: local channels, no transport at all. */
    INPROCESS("auto", 1);

    private final String transport;
    private final int environments;

    Link(String transport, int environments) {
        this.transport = transport;
        this.environments = environments;
    }

    /**
     * @param name a benchmark parameter: tcp, nio, epoll, local or inprocess
     * @return the link of that name
     * @throws IllegalArgumentException listing the names when there is none of that name
     */
    static Link named(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("link '" + name + "' is not one of tcp, nio, epoll, local, inprocess", e);
        }
    }

    /**
     * @param base the benchmark's configuration
     * @return one context per environment, with this link's transport; the producer side is environment 0
     */
    List<ShuffleEnvironmentContext> contexts(ShuffleConfig base) {
        ShuffleConfig config = base.with(ShuffleOptions.NETTY_TRANSPORT, transport);
        List<ShuffleEnvironmentContext> contexts = new ArrayList<>();
        for (int i = 0; i < environments; i++) {
            contexts.add(ShuffleEnvironmentContext.of(config, new ResourceId("jmh-" + name().toLowerCase(Locale.ROOT) + "-" + i)));
        }
        return contexts;
    }

    /** @return the environment consumers use: the last one (the producer's own when there is one) */
    int consumerEnvironment() {
        return environments - 1;
    }
}
