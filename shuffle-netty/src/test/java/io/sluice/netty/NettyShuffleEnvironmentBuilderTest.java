package io.sluice.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.api.BufferOrEvent;
import io.sluice.api.InputGate;
import io.sluice.api.InputGateDeploymentDescriptor;
import io.sluice.api.PartitionDescriptor;
import io.sluice.api.PartitionType;
import io.sluice.api.ProducerDescriptor;
import io.sluice.api.ResourceId;
import io.sluice.api.ResultPartitionDeploymentDescriptor;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleEnvironmentContext;
import io.sluice.api.ShuffleOptions;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.transport.ChannelPipelineHook;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.netty.testing.MemoryAssertions.assertAllSegmentsReturned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NettyShuffleEnvironmentBuilderTest {

    private static final ShuffleConfig CONFIG = ShuffleConfig.empty()
            .with(ShuffleOptions.NETTY_TRANSPORT, "local")
            .with(ShuffleOptions.MEMORY_TOTAL, 2L << 20)
            .with(ShuffleOptions.NETTY_SERVER_THREADS, 1)
            .with(ShuffleOptions.NETTY_CLIENT_THREADS, 1);

    @Test
    void pipelineHook_seesEveryConnectionOfItsEnvironment_andItsHandlersSeeTheFrames() throws Exception {
        RecordingHook producerHook = new RecordingHook();
        RecordingHook consumerHook = new RecordingHook();
        ShuffleEnvironment producerEnv = build("producer", producerHook);
        ShuffleEnvironment consumerEnv = build("consumer", consumerHook);
        try {
            producerEnv.start();
            consumerEnv.start();
            ShuffleDescriptor descriptor = new NettyShuffleMaster().registerPartitionWithProducer(
                    new PartitionDescriptor(ResultPartitionId.random(), PartitionType.PIPELINED_BOUNDED, 1, 0),
                    new ProducerDescriptor(producerEnv.resourceId(), producerEnv.dataAddress())).get();
            ResultPartitionWriter writer = producerEnv.createResultPartitionWriters("producer", List.of(
                    new ResultPartitionDeploymentDescriptor(descriptor, PartitionType.PIPELINED_BOUNDED, 1))).get(0);
            InputGate gate = consumerEnv.createInputGates("consumer",
                    List.of(new InputGateDeploymentDescriptor(0, List.of(descriptor)))).get(0);
            writer.setup();
            gate.setup();
            writer.emitRecord(ByteBuffer.allocate(100), 0);
            writer.finish();
            writer.close();
            int buffers = 0;
            for (Optional<BufferOrEvent> next = gate.getNext(); next.isPresent(); next = gate.getNext()) {
                next.get().recycle();
                buffers++;
            }
            gate.close();

            assertEquals(0, producerHook.clients.size());
            assertEquals(1, producerHook.servers.size());
            assertEquals(1, consumerHook.clients.size());
            assertEquals(0, consumerHook.servers.size());
            assertTrue(consumerHook.framesAfterDecoder.get() >= buffers && buffers >= 1,
                    consumerHook.framesAfterDecoder.get() + " frames seen, " + buffers + " buffers and events read");
        } finally {
            producerEnv.close();
            consumerEnv.close();
        }
        assertAllSegmentsReturned(producerEnv);
        assertAllSegmentsReturned(consumerEnv);
    }

    @Test
    void networkBufferPool_isTheEnvironmentsMemory_andOnlyNettyEnvironmentsHaveOne() {
        ShuffleEnvironment environment = build("env", ChannelPipelineHook.NONE);
        try {
            NetworkBufferPool pool = NettyShuffleEnvironmentBuilder.networkBufferPool(environment);
            assertSame(pool, NettyShuffleEnvironmentBuilder.networkBufferPool(environment));
            assertEquals(environment.metrics().totalSegments(), pool.getTotalNumberOfMemorySegments());
        } finally {
            environment.close();
        }
        ShuffleEnvironment other = (ShuffleEnvironment) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ShuffleEnvironment.class}, (proxy, method, args) -> null);
        assertThrows(IllegalArgumentException.class, () -> NettyShuffleEnvironmentBuilder.networkBufferPool(other));
    }

    private static ShuffleEnvironment build(String name, ChannelPipelineHook hook) {
        return new NettyShuffleEnvironmentBuilder(ShuffleEnvironmentContext.of(CONFIG, new ResourceId(name)))
                .pipelineHook(hook).build();
    }

    /** Records the channels it is shown and counts the frames the client decodes. */
    private static final class RecordingHook implements ChannelPipelineHook {
        final List<Channel> servers = new CopyOnWriteArrayList<>();
        final List<Channel> clients = new CopyOnWriteArrayList<>();
        final AtomicInteger framesAfterDecoder = new AtomicInteger();

        @Override
        public void serverChannelInitialized(Channel channel) {
            servers.add(channel);
        }

        @Override
        public void clientChannelInitialized(Channel channel) {
            clients.add(channel);
            channel.pipeline().addAfter("decoder", "count", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    framesAfterDecoder.incrementAndGet();
                    ctx.fireChannelRead(msg);
                }
            });
        }
    }
}
