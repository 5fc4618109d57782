package io.sluice.netty.transport;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.ProducerConnection;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.ConnectionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * One open connection to a producer environment, shared by every remote channel of this environment that reads
 * from the same (address, connection index). Counted: each channel that uses it holds one reference, and the
 * connection closes (with a {@link CloseRequest}) when the last channel lets go.
 *
 * <p>Any thread. Messages are written with {@code Channel.writeAndFlush}, which hands them to the connection's event
 * loop as a task; frequent traffic (credit) goes through the handler's coalesced queue instead.
 */
public final class PartitionRequestClient implements ProducerConnection {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionRequestClient.class);

    private final Channel channel;
    private final CreditBasedClientHandler handler;
    private final ConnectionId connectionId;
    private final PartitionRequestClientFactory factory;

    @GuardedBy("this")
    private int users;
    @GuardedBy("this")
    private boolean closing;

    PartitionRequestClient(Channel channel, CreditBasedClientHandler handler, ConnectionId connectionId,
                           PartitionRequestClientFactory factory) {
        this.channel = channel;
        this.handler = handler;
        this.connectionId = connectionId;
        this.factory = factory;
    }

    /** Takes a reference for one channel; false when the connection is closing or closed (connect anew). */
    synchronized boolean acquire() {
        if (closing || !channel.isActive()) {
            return false;
        }
        users++;
        return true;
    }

    /** Whether the underlying connection is open. */
    public boolean isActive() {
        return channel.isActive();
    }

    /** The connection this client stands for. */
    public ConnectionId connectionId() {
        return connectionId;
    }

    /**
     * Registers the channel and sends its partition request with its full initial credit (again, on a retry).
     * A failed write fails that channel only.
     */
    @Override
    public void requestSubpartition(ResultPartitionId partitionId, int subpartitionIndex, RemoteInputChannel inputChannel,
                                    int initialCredit) {
        handler.addInputChannel(inputChannel);
        send(new PartitionRequest(partitionId, subpartitionIndex, inputChannel.lastSubpartitionIndex(),
                        inputChannel.inputChannelId(), initialCredit),
                inputChannel, "the request for partition " + partitionId);
    }

    /** Hands the channel's new credit to the event loop (coalesced). */
    @Override
    public void notifyCreditAvailable(RemoteInputChannel inputChannel) {
        handler.notifyCreditAvailable(inputChannel);
    }

    /** Sends a consumer's task event to the producer of {@code partitionId}. */
    @Override
    public void sendTaskEvent(ResultPartitionId partitionId, ByteBuffer event, RemoteInputChannel inputChannel) {
        send(new TaskEventRequest(event, partitionId, inputChannel.inputChannelId()), inputChannel,
                "a task event for partition " + partitionId);
    }

    /** Tells the producer that {@code inputChannel} resumes after a blocking event. */
    @Override
    public void resumeConsumption(RemoteInputChannel inputChannel) {
        send(new ResumeConsumption(inputChannel.inputChannelId()), inputChannel,
                "resume-consumption for " + inputChannel);
    }

    /** Tells the producer the buffer size {@code inputChannel} wants from now on. */
    @Override
    public void announceBufferSize(RemoteInputChannel inputChannel, int bufferSize) {
        send(new NewBufferSize(bufferSize, inputChannel.inputChannelId()), inputChannel,
                "a buffer size of " + bufferSize + " bytes for " + inputChannel);
    }

    /**
     * Writes {@code message} for {@code inputChannel}; a failed write fails that channel only, with a
     * {@link TransportException} saying that sending {@code what} to this connection failed, and why.
     */
    private void send(NettyMessage message, RemoteInputChannel inputChannel, String what) {
        channel.writeAndFlush(message).addListener((ChannelFutureListener) future -> {
            if (!future.isSuccess()) {
                inputChannel.onError(new TransportException("sending " + what + " to " + connectionId + " failed: "
                        + future.cause(), connectionId.address(), future.cause()));
            }
        });
    }

    /**
     * A channel lets go of this connection. The last one closes it (CloseRequest, then close); another one sends
     * a CancelPartitionRequest when {@code cancel} (the producer is still sending to it).
     */
    @Override
    public void close(RemoteInputChannel inputChannel, boolean cancel) {
        handler.removeInputChannel(inputChannel);
        boolean last;
        synchronized (this) {
            users--;
            last = users <= 0 && !closing;
            if (last) {
                closing = true;
            }
        }
        if (last) {
            factory.onClientClosing(this);
            if (channel.isActive()) {
                LOG.debug("Closing the connection to {}: its last channel is gone", connectionId);
                channel.writeAndFlush(new CloseRequest()).addListener(ChannelFutureListener.CLOSE);
            }
        } else if (cancel && channel.isActive()) {
            channel.writeAndFlush(new CancelPartitionRequest(inputChannel.inputChannelId()))
                    .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }
    }

    /** Closes the connection at once (environment shutdown). */
    void closeNow() {
        synchronized (this) {
            closing = true;
        }
        channel.close();
    }

    Channel channel() {
        return channel;
    }

    @Override
    public String toString() {
        return "client of " + connectionId + " on " + channel;
    }
}
