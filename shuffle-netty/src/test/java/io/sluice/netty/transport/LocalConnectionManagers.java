package io.sluice.netty.transport;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.api.ResourceId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.config.EnvironmentConfig;
import io.sluice.netty.partition.ResultPartitionManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Makes connection managers, by default started on Netty's local transport, with one server and one client thread
 * each, and closes them all after the test. Test thread only.
 */
final class LocalConnectionManagers implements AutoCloseable {

    /** How long a producer's server keeps a request for a partition that is not registered yet. */
    static final Duration SERVER_WAIT = Duration.ofMillis(5);

    /** Every manager made, started or not. */
    private final List<ConnectionManager> started = new ArrayList<>();

    /** A started connection manager of environment {@code name}, serving the partitions of {@code partitions}. */
    ConnectionManager start(String name, ResultPartitionManager partitions) {
        ConnectionManager manager = create(name, "local", 0, partitions);
        try {
            manager.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return manager;
    }

    /** Like {@link #start(String, ResultPartitionManager)}, with {@code hook} seeing every channel it builds. */
    ConnectionManager start(String name, ResultPartitionManager partitions, ChannelPipelineHook hook) {
        ConnectionManager manager = create(name, "local", 0, partitions, UnaryOperator.identity(),
                threadName -> new DefaultThreadFactory(threadName, true), hook);
        try {
            manager.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return manager;
    }

    /** A connection manager of environment {@code name} on {@code transport} and {@code port}, not started. */
    ConnectionManager create(String name, String transport, int port, ResultPartitionManager partitions) {
        return create(name, transport, port, partitions, UnaryOperator.identity(),
                threadName -> new DefaultThreadFactory(threadName, true));
    }

    /**
     * Like {@link #create(String, String, int, ResultPartitionManager)}, with options on top of the defaults and the
     * event loops' threads made by {@code threadFactories}.
     */
    ConnectionManager create(String name, String transport, int port, ResultPartitionManager partitions,
                             UnaryOperator<ShuffleConfig> options, Function<String, ThreadFactory> threadFactories) {
        return create(name, transport, port, partitions, options, threadFactories, ChannelPipelineHook.NONE);
    }

    private ConnectionManager create(String name, String transport, int port, ResultPartitionManager partitions,
                                     UnaryOperator<ShuffleConfig> options,
                                     Function<String, ThreadFactory> threadFactories, ChannelPipelineHook hook) {
        ShuffleConfig defaults = ShuffleConfig.empty()
                .with(ShuffleOptions.NETTY_TRANSPORT, transport)
                .with(ShuffleOptions.NETTY_PORT, port)
                .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
                .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1)
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, 4096L)
                .with(ShuffleOptions.MEMORY_TOTAL, 1L << 20)
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, SERVER_WAIT);
        ShuffleConfig config = options.apply(defaults);
        ShuffleEnvironmentContext context = new ShuffleEnvironmentContext(config, new ResourceId(name), 1L << 20, false,
                InetAddress.getLoopbackAddress());
        ConnectionManager manager = new ConnectionManager(context, EnvironmentConfig.from(context), partitions, null,
                hook, threadFactories);
        started.add(manager);
        return manager;
    }

    /** A started connection manager of environment {@code name} with no partitions. */
    ConnectionManager start(String name) {
        return start(name, new ResultPartitionManager());
    }

    /** Closes the managers, the last started first (consumers usually start after their producers). */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }
}
