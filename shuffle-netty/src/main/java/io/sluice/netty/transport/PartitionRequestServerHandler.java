package io.sluice.netty.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ShuffleException;
import io.sluice.netty.partition.PartitionRegistrationListener;
import io.sluice.netty.partition.RegisteredPartition;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.netty.partition.ResultSubpartitionView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Handles what clients send to the data server: partition requests (served at once, or parked until the partition
 * registers, or answered "not found" after {@code waitForPartitionMillis}), credit, cancellations, close requests,
 * task events, and a shuffle master's {@link ReleasePartitions} (run on Netty's global executor, never the event
 * loop; a close request after it closes the connection once those releases are done).
 *
 * <p>One instance per connection; only called on the connection's event loop, except the registration callback,
 * which hands over to the event loop.
 */
final class PartitionRequestServerHandler extends SimpleChannelInboundHandler<NettyMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionRequestServerHandler.class);

    private final ResultPartitionManager partitionManager;
    private final PartitionRequestQueue queue;
    private final long waitForPartitionMillis;
    /** Runs the releases a shuffle master asks for; never the event loop. */
    private final Executor releaseExecutor;
    /** The releases asked on this connection, in order; the close after them waits for them. Event loop only. */
    private CompletableFuture<Void> pendingReleases = CompletableFuture.completedFuture(null);

    /**
     * @param waitForPartitionMillis how long a request for a partition that is not registered yet is kept before it
     *                               is answered "not found" (the client then retries with its backoff)
     */
    PartitionRequestServerHandler(ResultPartitionManager partitionManager, PartitionRequestQueue queue,
                                  long waitForPartitionMillis) {
        this.partitionManager = partitionManager;
        this.queue = queue;
        this.waitForPartitionMillis = waitForPartitionMillis;
        this.releaseExecutor = GlobalEventExecutor.INSTANCE;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, NettyMessage msg) {
        if (msg instanceof PartitionRequest request) {
            onPartitionRequest(ctx, request);
        } else if (msg instanceof AddCredit addCredit) {
            queue.addCreditOrResume(addCredit.receiverId(), addCredit.credit());
        } else if (msg instanceof ResumeConsumption resume) {
            queue.resumeConsumption(resume.receiverId());
        } else if (msg instanceof NewBufferSize newSize) {
            queue.announceBufferSize(newSize.receiverId(), newSize.bufferSize());
        } else if (msg instanceof CancelPartitionRequest cancel) {
            queue.cancel(cancel.receiverId());
        } else if (msg instanceof CloseRequest) {
            LOG.debug("Client of {} closes the connection", ctx.channel());
            queue.releaseAllReaders();
            if (pendingReleases.isDone()) {
                ctx.close();
            } else {
                // A shuffle master waits for the close as its sign that the releases it asked for are done.
                pendingReleases.whenComplete((ignored, error) -> ctx.close());
            }
        } else if (msg instanceof ReleasePartitions release) {
            onReleasePartitions(ctx, release);
        } else if (msg instanceof TaskEventRequest taskEvent) {
            // Dropped when the partition is no longer registered (a consumer may acknowledge after its producer
            // finished and was released: normal) or has no listener (logged by the partition). Debug only here.
            if (!partitionManager.publishTaskEvent(taskEvent.partitionId(), taskEvent.event())) {
                LOG.debug("Task event from receiver {} dropped: partition {} is not registered here or has no "
                        + "listener", taskEvent.receiverId(), taskEvent.partitionId());
            }
        } else {
            throw new IllegalStateException("unexpected message from a client on " + ctx.channel() + ": " + msg);
        }
    }

    /**
     * Releases the partitions a shuffle master asks for, off the event loop (a blocking partition's release deletes
     * files), in the order asked.
     */
    private void onReleasePartitions(ChannelHandlerContext ctx, ReleasePartitions release) {
        LOG.info("{} asks to release partitions {} (ShuffleMaster.releasePartitionExternally)",
                ctx.channel().remoteAddress(), release.partitionIds());
        pendingReleases = pendingReleases.thenRunAsync(() -> {
            try {
                partitionManager.releasePartitions(release.partitionIds(), null);
            } catch (RuntimeException e) {
                LOG.warn("Releasing partitions {} for {} failed", release.partitionIds(),
                        ctx.channel().remoteAddress(), e);
            }
        }, releaseExecutor);
    }

    private void onPartitionRequest(ChannelHandlerContext ctx, PartitionRequest request) {
        CreditBasedViewReader reader = new CreditBasedViewReader(request.receiverId(), request.partitionId(),
                request.subpartitionIndex(), request.lastSubpartitionIndex(), request.initialCredit(), queue);
        queue.register(reader);
        PartitionRegistrationListener onRegistered = new PartitionRegistrationListener() {
            @Override
            public void onPartitionRegistered(RegisteredPartition partition) {
                // Producer thread: hand over to the event loop. A terminated loop (environment closing) rejects the
                // task: the connection is gone with it, so is the reader; nothing to serve.
                try {
                    ctx.executor().execute(() -> attachView(ctx, reader));
                } catch (RejectedExecutionException e) {
                    LOG.debug("Partition {} registered after the event loop of {} stopped; reader {} dropped",
                            partition.partitionId(), ctx.channel(), reader.receiverId());
                }
            }
        };
        ResultSubpartitionView view;
        try {
            view = partitionManager.createSubpartitionViewOrRegisterListener(request.partitionId(),
                    request.subpartitionIndex(), request.lastSubpartitionIndex(), reader, onRegistered);
        } catch (ShuffleException | RuntimeException e) {
            queue.failReader(reader, e);
            return;
        }
        if (view != null) {
            reader.setView(view);
            queue.onViewAttached(reader);
            return;
        }
        queue.readThrottle().requestParked();
        ctx.executor().schedule(() -> {
            queue.readThrottle().requestUnparked();
            if (partitionManager.removeRegistrationListener(request.partitionId(), onRegistered)
                    && queue.reader(request.receiverId()) == reader && !reader.isReleased()) {
                queue.failReader(reader, new PartitionNotFoundException(request.partitionId()));
            }
        }, waitForPartitionMillis, TimeUnit.MILLISECONDS);
    }

    private void attachView(ChannelHandlerContext ctx, CreditBasedViewReader reader) {
        if (reader.isReleased() || queue.reader(reader.receiverId()) != reader) {
            return;
        }
        try {
            reader.setView(partitionManager.createSubpartitionView(reader.partitionId(), reader.subpartitionIndex(),
                    reader.lastSubpartitionIndex(), reader));
        } catch (ShuffleException | RuntimeException e) {
            queue.failReader(reader, e);
            return;
        }
        queue.onViewAttached(reader);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof CorruptFrameException || cause.getCause() instanceof CorruptFrameException) {
            LOG.warn("Closing connection from {}: corrupt frame: {}", ctx.channel().remoteAddress(),
                    cause.getMessage());
        } else if (cause instanceof IOException) {
            // The consumer went away (reset, closed under a write, heartbeat timeout): its readers are released
            // below, nothing is lost.
            LOG.info("Connection from {} lost: {}", ctx.channel().remoteAddress(), cause.getMessage());
        } else {
            LOG.warn("Closing connection from {} after an error", ctx.channel().remoteAddress(), cause);
            if (ctx.channel().isActive()) {
                ctx.writeAndFlush(new ErrorResponse(ErrorKind.TRANSPORT, "server error: " + cause, null, null));
            }
        }
        queue.releaseAllReaders();
        ctx.close();
    }
}
