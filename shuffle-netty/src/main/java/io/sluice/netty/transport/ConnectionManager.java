package io.sluice.netty.transport;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.api.ConnectionMetrics;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleOptions;
import io.sluice.netty.config.EnvironmentConfig;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.tls.TlsContexts;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.netty.gate.ProducerConnections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An environment's Netty transport: the data server that serves its partitions to other environments, and the
 * client factory through which its remote channels connect to theirs.
 *
 * <p>Pipelines (TLS handlers only with TLS on a TCP transport):
 * <pre>
 *   server: [tls, tls-guard,] decoder, encoder, heartbeat, requests, queue
 *   client: [tls,] decoder, encoder, heartbeat, credit
 * </pre>
 * On the local transport the server is a {@link LocalDataServerChannel}, and a client channel starts with a
 * {@link LocalConnectTimeout}, which leaves once connected.
 *
 * <p>Life cycle: {@link #start()} once, {@link #close()} once (idempotent); the metrics from any thread.
 */
public final class ConnectionManager implements ProducerConnections {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    /** The client handler a new client channel's pipeline is built around; set on the bootstrap per connect. */
    static final AttributeKey<CreditBasedClientHandler> CLIENT_HANDLER =
            AttributeKey.valueOf(ConnectionManager.class, "clientHandler");

    /**
     * The largest server-to-client frame that is not a data buffer: an event buffer of
     * {@link io.sluice.api.ResultPartitionWriter#MAX_EVENT_BYTES}, or an error message (with its cause chain). Data frames are bounded by
     * a segment. Clients accumulate only error bodies, so this is what a client buffers at most per connection.
     */
    private static final int MAX_EVENT_FRAME_BYTES = Math.max(1 << 20,
            BufferResponse.frameLength(EventSerializer.MAX_SERIALIZED_EVENT_BYTES));

    /**
     * Unflushed bytes a server connection may queue before it stops taking buffers from its readers. The queued
     * bytes are the producers' own buffers (zero copy) and are bounded by the consumers' credit anyway; a window of
     * 16 buffers, not the classic 2, lets one flush hand the socket many of them, which the JMH benchmark
     * {@code BulkThroughputBenchmark.fullBuffers} shows in its throughput.
     */
    private static final int WRITE_HIGH_WATER_MARK_SEGMENTS = 16;

    /**
     * Largest single socket read. Netty grows the read size adaptively up to this; reading up to 8 full frames at
     * once takes one syscall and one pipeline pass where reads of 64 KiB take four, which the JMH benchmark
     * {@code BulkThroughputBenchmark.fullBuffers} shows in its throughput. The bytes are copied into the channels'
     * buffers at once and the read buffer released, so it is transient.
     */
    private static final int MAX_READ_BYTES = 256 * 1024;

    /** Ports standing for environments on the local transport; unique within the JVM. */
    private static final AtomicInteger LOCAL_PORTS = new AtomicInteger(20_000);

    /** How long close() waits for the server channel, the connections, and each event loop group to stop. */
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    private final ShuffleEnvironmentContext context;
    private final EnvironmentConfig config;
    private final ResultPartitionManager partitionManager;
    /** Null without TLS. */
    private final TlsContexts tls;
    private final ChannelPipelineHook pipelineHook;
    /** Makes the threads of an event loop group from its name (a test seam; daemon threads otherwise). */
    private final Function<String, ThreadFactory> threadFactories;
    private final TransportMetrics metrics = new TransportMetrics();
    /** lz4 for data buffers on the wire (shuffle.compression.codec), or null. */
    private final BufferCompressor compressor;
    /** When blocking partitions' data goes to a TCP consumer by sendfile (shuffle.blocking.zero-copy). */
    private final ZeroCopyMode zeroCopy;
    private final ChannelGroup openChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    /** On the local transport, the channels of other environments that this one's channels are connected to. */
    private final LocalFarEnds farEnds = new LocalFarEnds();

    private final Object lock = new Object();
    /** Written once in {@link #start()} (under the lock) before any channel exists; read by event loops. */
    private volatile TransportType type;
    @GuardedBy("lock")
    private EventLoopGroup serverGroup;
    @GuardedBy("lock")
    private EventLoopGroup clientGroup;
    @GuardedBy("lock")
    private Channel serverChannel;
    private volatile InetSocketAddress dataAddress;
    private volatile PartitionRequestClientFactory clientFactory;
    @GuardedBy("lock")
    private boolean closed;
    /**
     * Set first thing in {@link #close()}, read by the channel initializers without the lock (which close() holds
     * while it waits for the event loops): a connection that comes up while close() runs closes itself.
     */
    private volatile boolean closing;

    /** A transport without TLS. */
    public ConnectionManager(ShuffleEnvironmentContext context, EnvironmentConfig config,
                             ResultPartitionManager partitionManager) {
        this(context, config, partitionManager, null, ChannelPipelineHook.NONE);
    }

    /**
     * @param tls          the TLS of every TCP connection, or null for none (the local transport never uses it)
     * @param pipelineHook sees every channel once its pipeline is built (a test and tool seam);
     *                     {@link ChannelPipelineHook#NONE} for none
     */
    public ConnectionManager(ShuffleEnvironmentContext context, EnvironmentConfig config,
                             ResultPartitionManager partitionManager, TlsContexts tls,
                             ChannelPipelineHook pipelineHook) {
        this(context, config, partitionManager, tls, pipelineHook, name -> new DefaultThreadFactory(name, true));
    }

    /** With the event loops' threads made by {@code threadFactories} (a test seam: loops that never run). */
    ConnectionManager(ShuffleEnvironmentContext context, EnvironmentConfig config,
                      ResultPartitionManager partitionManager, TlsContexts tls, ChannelPipelineHook pipelineHook,
                      Function<String, ThreadFactory> threadFactories) {
        this.threadFactories = Objects.requireNonNull(threadFactories, "threadFactories");
        this.context = context;
        this.config = config;
        this.partitionManager = partitionManager;
        this.tls = tls;
        this.pipelineHook = Objects.requireNonNull(pipelineHook, "pipelineHook");
        this.dataAddress = new InetSocketAddress(context.bindAddress(), 0);
        this.compressor = config.compressionEnabled() ? new BufferCompressor() : null;
        this.zeroCopy = ZeroCopyMode.of(config.blockingZeroCopy());
    }

    /**
     * Starts the event loops, binds the data server and prepares the client.
     *
     * @return the data port (on the local transport, the port that stands for this environment)
     * @throws ShuffleException when the data server was not bound within {@code shuffle.netty.bind-timeout}
     * @throws IOException      when it cannot be bound (a TCP port in use), or the thread was interrupted
     */
    public int start() throws IOException {
        synchronized (lock) {
            if (closed || serverChannel != null) {
                throw new IllegalStateException("transport of " + context.resourceId() + " was already started or "
                        + "closed");
            }
            type = TransportType.fromOption(config.transport());
            String rid = context.resourceId().value();
            serverGroup = new MultiThreadIoEventLoopGroup(threads(config.serverThreads()),
                    threadFactories.apply("sluice-server-" + rid), type.ioHandlerFactory());
            clientGroup = new MultiThreadIoEventLoopGroup(threads(config.clientThreads()),
                    threadFactories.apply("sluice-client-" + rid), type.ioHandlerFactory());
            try {
                bindServer();
            } catch (IOException | RuntimeException e) {
                // A loop that did not bind in time may never stop either: wait no longer than for the bind.
                shutDownGroups(config.bindTimeout().toMillis());
                serverGroup = null;
                clientGroup = null;
                throw e;
            }
            clientFactory = new PartitionRequestClientFactory(newClientBootstrap(), this::remoteAddressOf);
            LOG.info("Environment {} serves data on {} ({} transport, {})", rid, dataAddress, type,
                    usesTls() ? "TLS with mutual authentication, " + tls.provider() + " provider" : "no TLS");
            return dataAddress.getPort();
        }
    }

    @GuardedBy("lock")
    private void bindServer() throws IOException {
        int highWaterMark = WRITE_HIGH_WATER_MARK_SEGMENTS * config.segmentSize();
        WriteBufferWaterMark waterMark = new WriteBufferWaterMark(highWaterMark / 2, highWaterMark);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(serverGroup)
                .channel(type.serverChannelClass())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, readSizes())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        if (type == TransportType.LOCAL) {
                            // Before track(): a channel it closes at once may still have been written to.
                            farEnds.accepted(channel);
                        }
                        if (!track(channel)) {
                            return;
                        }
                        // FileRegions need a TCP socket and no handler that rewrites bytes: not on the local
                        // transport, and not under TLS (SslHandler encrypts ByteBufs only); and the zero-copy option
                        // decides by the consumer's address.
                        PartitionRequestQueue queue = new PartitionRequestQueue(metrics, compressor,
                                type != TransportType.LOCAL && !usesTls()
                                        && zeroCopy.sendsFilesTo(channel.remoteAddress()));
                        ChannelPipeline pipeline = channel.pipeline();
                        if (usesTls()) {
                            pipeline.addLast("tls", tls.newServerHandler(channel.alloc()))
                                    .addLast("tls-guard", new TlsHandshakeGuard());
                        }
                        pipeline.addLast(ConnectionTraffic.NAME,
                                        new ConnectionTraffic(ConnectionMetrics.Direction.INCOMING))
                                .addLast("decoder", new ServerMessageDecoder(ServerMessageDecoder.maxClientFrameLength()))
                                .addLast("encoder", new NettyMessageEncoder())
                                .addLast("heartbeat", new HeartbeatHandler(config.heartbeatInterval(),
                                        config.heartbeatTimeout(), "consumer"))
                                .addLast("requests", new PartitionRequestServerHandler(partitionManager, queue,
                                        Math.max(1, config.initialBackoff().toMillis())))
                                .addLast("queue", queue);
                        pipelineHook.serverChannelInitialized(channel);
                    }
                });
        SocketAddress bindTo;
        if (type == TransportType.LOCAL) {
            int port = config.port() != 0 ? config.port() : LOCAL_PORTS.incrementAndGet();
            dataAddress = new InetSocketAddress(context.bindAddress(), port);
            bindTo = localAddressOf(dataAddress);
        } else {
            bootstrap.childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true);
            bindTo = new InetSocketAddress(context.bindAddress(), config.port());
        }
        ChannelFuture bound = bootstrap.bind(bindTo);
        long timeoutMillis = config.bindTimeout().toMillis();
        try {
            if (!bound.await(timeoutMillis)) {
                // Registered or not, the channel must not come up later: the groups are shut down next.
                bound.channel().close();
                throw new ShuffleException("the data server of " + context.resourceId() + " (" + type
                        + " transport) was not bound to " + bindTo + " within " + timeoutMillis + " ms ("
                        + ShuffleOptions.NETTY_BIND_TIMEOUT.key() + "): its event loop did not register and bind it, "
                        + "so the loop is stuck or starved of CPU; raise " + ShuffleOptions.NETTY_BIND_TIMEOUT.key()
                        + " only for a machine that is that overloaded");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding the data server of " + context.resourceId() + " ("
                    + type + " transport) to " + bindTo + ": the thread calling start() was interrupted", e);
        }
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw new IOException("cannot bind the data server of " + context.resourceId() + " to " + bindTo + ": "
                    + cause.getMessage() + (config.port() != 0 ? "; choose another " + ShuffleOptions.NETTY_PORT.key()
                    + " or 0 for any free port" : ""), cause);
        }
        serverChannel = bound.channel();
        if (type != TransportType.LOCAL) {
            dataAddress = (InetSocketAddress) serverChannel.localAddress();
        }
    }

    @GuardedBy("lock")
    private Bootstrap newClientBootstrap() {
        int maxFrame = Math.max(BufferResponse.frameLength(config.segmentSize()), MAX_EVENT_FRAME_BYTES);
        Bootstrap bootstrap = new Bootstrap()
                .group(clientGroup)
                .channel(type.clientChannelClass())
                .option(ChannelOption.RCVBUF_ALLOCATOR, readSizes())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        config.connectTimeout().toMillis()))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        if (!track(channel)) {
                            return;
                        }
                        CreditBasedClientHandler handler = channel.attr(CLIENT_HANDLER).get();
                        ChannelPipeline pipeline = channel.pipeline();
                        if (type == TransportType.LOCAL) {
                            farEnds.clientOpened(channel);
                            // Netty's socket channels time their connects out; its local channel does not.
                            pipeline.addLast(LocalConnectTimeout.NAME,
                                    new LocalConnectTimeout(config.connectTimeout()));
                        }
                        if (usesTls()) {
                            pipeline.addLast("tls", tls.newClientHandler(channel.alloc()));
                        }
                        pipeline.addLast(ConnectionTraffic.NAME,
                                        new ConnectionTraffic(ConnectionMetrics.Direction.OUTGOING))
                                .addLast("decoder", new ClientMessageDecoder(handler, maxFrame, compressor, metrics))
                                .addLast("encoder", new NettyMessageEncoder())
                                .addLast("heartbeat", new HeartbeatHandler(config.heartbeatInterval(),
                                        config.heartbeatTimeout(),
                                        "producer " + handler.connectionId().producerId().value()))
                                .addLast("credit", handler);
                        pipelineHook.clientChannelInitialized(channel);
                    }
                });
        if (type != TransportType.LOCAL) {
            bootstrap.option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
        }
        return bootstrap;
    }

    /** Whether connections use TLS: configured, and a TCP transport (the local transport is in-JVM and exempt). */
    private boolean usesTls() {
        return tls != null && type != TransportType.LOCAL;
    }

    /**
     * Adds a new channel to those {@link #close()} closes; closes it at once when close() has begun, since close()
     * may already have closed the others. Without this a connection accepted while the environment closes outlived
     * its event loop: on the local transport, what the peer wrote to it was queued to a reader that never ran, and
     * leaked (found by seeded fault injection). Event loop of the channel.
     *
     * @return false when the channel was closed
     */
    private boolean track(Channel channel) {
        openChannels.add(channel);
        // Added before reading the flag, and close() sets the flag before closing the group: either close() sees
        // this channel in the group, or this sees the flag.
        if (closing) {
            channel.close();
            return false;
        }
        return true;
    }

    private static AdaptiveRecvByteBufAllocator readSizes() {
        // Netty's default minimum and initial sizes; only the maximum is raised.
        return new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES);
    }

    private SocketAddress remoteAddressOf(ConnectionId connectionId) {
        return type == TransportType.LOCAL ? localAddressOf(connectionId.address()) : connectionId.address();
    }

    /** The local-transport address that stands for {@code address}. */
    static LocalAddress localAddressOf(InetSocketAddress address) {
        return new LocalAddress("sluice-" + address.getHostString() + "-" + address.getPort());
    }

    private static int threads(int configured) {
        return configured > 0 ? configured : Runtime.getRuntime().availableProcessors();
    }

    /** The address consumers reach this environment's data server at (after {@link #start()}). */
    public InetSocketAddress dataAddress() {
        return dataAddress;
    }

    /**
     * The client factory of this environment's remote channels.
     *
     * @throws IllegalStateException before {@link #start()}
     */
    public PartitionRequestClientFactory clientFactory() {
        PartitionRequestClientFactory factory = clientFactory;
        if (factory == null) {
            throw new IllegalStateException("environment " + context.resourceId() + " was not started: call "
                    + "ShuffleEnvironment.start() before setting up gates that read from other environments");
        }
        return factory;
    }

    /**
     * The client of {@code connectionId} from {@link #clientFactory()}: the remote channels' way to their producers.
     *
     * @throws IllegalStateException before {@link #start()}
     */
    @Override
    public PartitionRequestClient createPartitionRequestClient(ConnectionId connectionId)
            throws IOException, InterruptedException {
        return clientFactory().createPartitionRequestClient(connectionId);
    }

    /** Byte and buffer counters of both directions. */
    public TransportMetrics metrics() {
        return metrics;
    }

    /**
     * One entry per connection open now, accepted and opened alike: an opened one names the producer's data
     * address, an accepted one the consumer's address. Any thread; reads counters, takes no lock.
     */
    public List<ConnectionMetrics> connectionMetrics() {
        List<ConnectionMetrics> connections = new ArrayList<>();
        for (Channel channel : openChannels) {
            ConnectionTraffic traffic = channel.pipeline().get(ConnectionTraffic.class);
            if (traffic == null) {
                // Refused (tracked while closing) before its pipeline was built.
                continue;
            }
            CreditBasedClientHandler client = channel.attr(CLIENT_HANDLER).get();
            if (client != null) {
                connections.add(traffic.metrics(channel, client.connectionId().address(), client.creditOutstanding()));
            } else {
                connections.add(traffic.metrics(channel, channel.remoteAddress(), 0));
            }
        }
        return connections;
    }

    /** Connections open now, accepted and opened alike. */
    public int openConnections() {
        int open = 0;
        for (Channel channel : openChannels) {
            if (channel.isActive()) {
                open++;
            }
        }
        return open;
    }

    /**
     * Closes every connection and stops the event loops, on the local transport once the far ends of its connections
     * have closed too (see {@link LocalFarEnds}). Idempotent.
     */
    public void close() {
        closing = true;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            PartitionRequestClientFactory factory = clientFactory;
            if (factory != null) {
                factory.close();
            }
            if (serverChannel != null && !serverChannel.close().awaitUninterruptibly(CLOSE_WAIT_MILLIS)) {
                LOG.warn("Data server of {} ({} transport) did not close within {} ms", context.resourceId(), type,
                        CLOSE_WAIT_MILLIS);
            }
            if (!openChannels.close().awaitUninterruptibly(CLOSE_WAIT_MILLIS)) {
                LOG.warn("Connections of {} did not all close within {} ms", context.resourceId(), CLOSE_WAIT_MILLIS);
            }
            awaitFarEndsClosed();
            shutDownGroups(CLOSE_WAIT_MILLIS);
        }
    }

    /**
     * Waits until the far ends of the local connections have closed: a frame a far end queued to one of our channels
     * after it closed is released only by the task the far end's own close runs on our event loop, so the loops must
     * outlive it (see {@link LocalFarEnds}). Nothing to wait for on TCP.
     */
    private void awaitFarEndsClosed() {
        if (!farEnds.awaitClosed(CLOSE_WAIT_MILLIS)) {
            LOG.warn("The far ends of the local connections of {} did not all close within {} ms; a frame they "
                    + "wrote after our end closed may leak", context.resourceId(), CLOSE_WAIT_MILLIS);
        }
    }

    /** Shuts both groups down and waits up to {@code waitMillis} for each to stop; a WARN names one that did not. */
    @GuardedBy("lock")
    private void shutDownGroups(long waitMillis) {
        // No quiet period: every channel is closed; give in-flight tasks (buffer recycling) a short while to run.
        shutDown("server", serverGroup, waitMillis);
        shutDown("client", clientGroup, waitMillis);
    }

    private void shutDown(String role, EventLoopGroup group, long waitMillis) {
        if (group != null && !group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(waitMillis)) {
            LOG.warn("The {} event loops of {} ({} transport) did not stop within {} ms", role, context.resourceId(),
                    type, waitMillis);
        }
    }
}
