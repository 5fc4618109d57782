package io.sluice.netty.transport;

import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.partition.ResultPartitionManager;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On the local transport a frame can reach the far end of a connection after that end closed: Netty's
 * {@code LocalChannel} checks that the far end is connected, then queues the frame there, and the far end may close
 * and empty its queue in between. Netty releases such a frame only when the writing end closes too, by a task on the
 * far end's event loop; so an environment that closes must keep its event loops until the far ends of its local
 * connections have closed, or the frame leaks. Each test stops the writer between Netty's check and its queueing
 * (inside the frame's {@code retain()}), closes the other environment, and lets the write finish once that close has
 * returned or waits for the writer's end.
 */
@Timeout(60)
class LocalTransportCloseTest {

    /** The method in which an environment's close waits for the far ends of its local connections. */
    private static final String WAIT_FOR_FAR_ENDS = "awaitFarEndsClosed";

    private final LocalConnectionManagers managers = new LocalConnectionManagers();
    private final CompletableFuture<Channel> accepted = new CompletableFuture<>();
    private final HeldFrame frame = new HeldFrame();

    @AfterEach
    void closeAndReleaseWhatIsLeft() {
        managers.close();
        if (frame.refCnt() > 0) {
            // Left in a closed channel's queue: released here so that it fails this test only.
            frame.release(frame.refCnt());
        }
    }

    @Test
    void producerClosedWhileTheConsumerHandsItAFrame_theFrameIsReleased() throws Exception {
        ConnectionManager producer = startProducer();
        Channel consumerEnd = connectedConsumer(producer);

        ChannelFuture written = handOver(consumerEnd, frame);
        closeWhileTheHandOverIsHeld(producer, consumerEnd, "close producer environment");

        assertTrue(written.isSuccess(), "Netty handed the frame over: the producer end was connected when it checked");
        assertEquals(0, frame.refCnt(), "the frame the consumer handed to the closed producer end was not released");
    }

    @Test
    void consumerClosedWhileTheProducerHandsItAFrame_theFrameIsReleased() throws Exception {
        ConnectionManager producer = startProducer();
        ConnectionManager consumer = managers.start("consumer");
        connect(consumer, producer);
        Channel producerEnd = accepted.get(30, TimeUnit.SECONDS);

        ChannelFuture written = handOver(producerEnd, frame);
        closeWhileTheHandOverIsHeld(consumer, producerEnd, "close consumer environment");

        assertTrue(written.isSuccess(), "Netty handed the frame over: the consumer end was connected when it checked");
        assertEquals(0, frame.refCnt(), "the frame the producer handed to the closed consumer end was not released");
    }

    private ConnectionManager startProducer() {
        return managers.start(RemoteChannels.PRODUCER.value(), new ResultPartitionManager(), new ChannelPipelineHook() {
            @Override
            public void serverChannelInitialized(Channel channel) {
                accepted.complete(channel);
            }
        });
    }

    private Channel connectedConsumer(ConnectionManager producer) throws Exception {
        return connect(managers.start("consumer"), producer);
    }

    private static Channel connect(ConnectionManager consumer, ConnectionManager producer) throws Exception {
        PartitionRequestClient client = consumer.createPartitionRequestClient(
                new ConnectionId(producer.dataAddress(), 0, RemoteChannels.PRODUCER));
        Await.until(() -> producer.openConnections() == 1, "the producer end is connected");
        return client.channel();
    }

    /**
     * Writes {@code frame} at the head of {@code writer}'s pipeline and waits until Netty holds it mid hand-over.
     *
     * @return the write's future
     */
    private static ChannelFuture handOver(Channel writer, HeldFrame frame) throws InterruptedException {
        ChannelFuture written = writer.pipeline().firstContext().writeAndFlush(frame);
        if (!frame.inHandOver.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the frame's hand-over to the far end did not start");
        }
        return written;
    }

    /**
     * Closes {@code environment} on a thread of its own while the writer is held, and lets the writer go on once the
     * close returned (the far end's event loops are gone) or waits for the writer's end (the loops are kept); then
     * waits for both the close and the writer's end, which the far end's close closes.
     */
    private void closeWhileTheHandOverIsHeld(ConnectionManager environment, Channel writer, String name)
            throws Exception {
        BackgroundTask<Void> close = BackgroundTask.start(name, environment::close);
        Await.until(() -> close.isDone() || close.isParkedIn(WAIT_FOR_FAR_ENDS),
                "the close returned or waits for the writing end");
        frame.proceed.countDown();
        close.await();
        if (!writer.closeFuture().await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the writing end did not close after its far end closed");
        }
    }

    /**
     * A frame whose hand-over stops on the writer's event loop between Netty's check that the far end is connected
     * and its queueing there: {@code LocalChannel.doWrite} takes the far end's reference in between.
     */
    private static final class HeldFrame extends DefaultByteBufHolder {

        final CountDownLatch inHandOver = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);

        HeldFrame() {
            super(Unpooled.directBuffer(8).writeLong(42));
        }

        @Override
        public ByteBufHolder retain() {
            super.retain();
            if (inHandOver.getCount() > 0) {
                inHandOver.countDown();
                try {
                    if (!proceed.await(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("the test did not let the hand-over go on");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return this;
        }
    }
}
