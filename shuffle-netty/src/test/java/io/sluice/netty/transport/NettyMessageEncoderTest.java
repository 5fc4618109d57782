package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The encoder writes BufferResponse data without copying it, and the written ByteBuf carries the ownership of the
 * Sluice buffer: releasing it (after the write, or when the write fails) recycles the buffer exactly once.
 */
class NettyMessageEncoderTest {

    private static final InputChannelId RECEIVER = new InputChannelId(7, 8);

    private final CodecChannels channels = new CodecChannels();
    private final BufferRecycler recycler = mock(BufferRecycler.class);
    private final EmbeddedChannel sender = channels.sender();

    @AfterEach
    void nothingLeaks() {
        sender.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    @Test
    void dataIsNotCopied_theWrittenByteBufSharesTheBuffersMemory() {
        Buffer buffer = TestBuffers.dataBuffer(1000, 1, recycler);
        ByteBuf data = writeAndTakeData(new BufferResponse(buffer, RECEIVER, 0, 0, DataType.DATA_BUFFER, 1000));

        buffer.getMemorySegment().put(0, (byte) 99);
        buffer.getMemorySegment().put(999, (byte) -99);

        assertEquals(1000, data.readableBytes());
        assertEquals(99, data.getByte(data.readerIndex()));
        assertEquals(-99, data.getByte(data.readerIndex() + 999));
        data.release();
    }

    @Test
    void heapEventIsNotCopied_theWrittenByteBufSharesTheArray() {
        byte[] event = TestBuffers.pattern(20, 4);
        ByteBuf data = writeAndTakeData(new BufferResponse(new Buffer(MemorySegment.wrap(event), recycler, false, 20),
                RECEIVER, 0, 0, DataType.EVENT_BUFFER, 20));

        event[5] = 123;

        assertEquals(20, data.readableBytes());
        assertEquals(123, data.getByte(data.readerIndex() + 5));
        data.release();
    }

    @Test
    void senderBuffer_isRecycledExactlyOnce_whenNettyReleasesTheWrittenData() {
        Buffer buffer = TestBuffers.dataBuffer(100, 1, recycler);
        ByteBuf data = writeAndTakeData(new BufferResponse(buffer, RECEIVER, 0, 0, DataType.DATA_BUFFER, 100));

        assertEquals(1, buffer.refCnt(), "the released header did not hold the buffer");
        data.retain();
        data.release();
        verify(recycler, times(0).description("still referenced by the ByteBuf")).recycle(any());

        data.release();
        verify(recycler, times(1)).recycle(any());
        assertTrue(buffer.isRecycled());
    }

    @Test
    void sliceOfAQueuedBuffer_sharesItsCount_andTheBufferIsRecycledOnceByTheLastHolder() {
        Buffer queued = TestBuffers.dataBuffer(500, 1, recycler);
        Buffer slice = queued.readOnlySlice(100, 200).retainBuffer();
        sender.writeOutbound(new BufferResponse(slice, RECEIVER, 0, 0, DataType.DATA_BUFFER, 200));

        releaseAllOutbound();
        assertEquals(1, queued.refCnt(), "the write released exactly the slice's reference");
        verify(recycler, times(0)).recycle(any());

        queued.recycleBuffer();
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void twoSlicesOfOneSegment_queuedTogether_eachCarryTheirOwnBytes_fromTheSegmentsMemoryAddress() {
        // A pipelined subpartition sends the part of a buffer committed so far, then more of the same buffer while
        // the first part may still be queued: the two data ByteBufs wrap one segment at once.
        Buffer queued = TestBuffers.dataBuffer(500, 1, recycler);
        Buffer first = queued.readOnlySlice(0, 100).retainBuffer();
        Buffer second = queued.readOnlySlice(100, 300).retainBuffer();
        sender.writeOutbound(new BufferResponse(first, RECEIVER, 0, 0, DataType.DATA_BUFFER, 100));
        sender.writeOutbound(new BufferResponse(second, RECEIVER, 1, 0, DataType.DATA_BUFFER, 300));

        ((ByteBuf) sender.readOutbound()).release();
        ByteBuf firstData = sender.readOutbound();
        ((ByteBuf) sender.readOutbound()).release();
        ByteBuf secondData = sender.readOutbound();

        assertEquals(100, firstData.readableBytes());
        assertEquals(300, secondData.readableBytes());
        for (int i = 0; i < 100; i++) {
            assertEquals(queued.getMemorySegment().get(i), firstData.getByte(firstData.readerIndex() + i));
        }
        for (int i = 0; i < 300; i++) {
            assertEquals(queued.getMemorySegment().get(100 + i), secondData.getByte(secondData.readerIndex() + i));
        }
        assertEquals(firstData.nioBuffer(), queued.getMemorySegment().wrap(0, 100));
        assertEquals(secondData.nioBuffer(), queued.getMemorySegment().wrap(100, 300));
        if (io.netty.util.internal.PlatformDependent.hasUnsafe()) {
            // epoll's writev takes the address: no ByteBuffer view is made per buffer sent.
            assertTrue(firstData.hasMemoryAddress());
            assertEquals(firstData.memoryAddress() + firstData.readerIndex() + 100,
                    secondData.memoryAddress() + secondData.readerIndex());
        }
        firstData.release();
        secondData.release();
        assertEquals(1, queued.refCnt(), "each data ByteBuf released its slice's reference once");
        verify(recycler, times(0)).recycle(any());
        queued.recycleBuffer();
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void responsesOfOneChannel_shareOneVoidHeaderPromise() {
        List<ChannelPromise> headerPromises = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ByteBuf written = (ByteBuf) msg;
                if (written.readableBytes() == BufferResponse.frameLength(0)) {
                    headerPromises.add(promise);
                }
                written.release();
                promise.trySuccess();
            }
        }, new NettyMessageEncoder());

        channel.writeOutbound(new BufferResponse(TestBuffers.dataBuffer(10, 1, recycler), RECEIVER, 0, 0,
                DataType.DATA_BUFFER, 10));
        channel.writeOutbound(new BufferResponse(TestBuffers.dataBuffer(20, 2, recycler), RECEIVER, 1, 0,
                DataType.DATA_BUFFER, 20));

        assertEquals(2, headerPromises.size());
        assertSame(headerPromises.get(0), headerPromises.get(1));
        assertTrue(headerPromises.get(0).isVoid());
        verify(recycler, times(2)).recycle(any());
        channel.finishAndReleaseAll();
    }

    @Test
    void writePromise_isCompletedByTheDataWrite_notTheHeaderWrite() {
        List<ChannelPromise> promises = new ArrayList<>();
        List<Object> written = new ArrayList<>();
        EmbeddedChannel channel = channels.channel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written.add(msg);
                promises.add(promise);
            }
        }, new NettyMessageEncoder());
        Buffer buffer = TestBuffers.dataBuffer(10, 1, recycler);

        ChannelPromise promise = channel.newPromise();
        channel.write(new BufferResponse(buffer, RECEIVER, 0, 0, DataType.DATA_BUFFER, 10), promise);

        assertEquals(2, written.size());
        assertSame(promise, promises.get(1));
        assertTrue(promises.get(0).isVoid());
        promises.get(0).tryFailure(new IOException("header write failed"));
        assertDoesNotThrow(channel::checkException, "a failed header write is not fired down the pipeline");
        written.forEach(msg -> ((ByteBuf) msg).release());
        verify(recycler, times(1)).recycle(any());
        channel.finishAndReleaseAll();
    }

    @Test
    void failedDataWrite_failsTheCallersPromise_andRecyclesTheBuffer() {
        EmbeddedChannel channel = channels.channel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                // What Netty's outbound buffer does with a message it cannot write.
                ((ByteBuf) msg).release();
                promise.tryFailure(new IOException("connection reset"));
            }
        }, new NettyMessageEncoder());

        ChannelFuture future = channel.writeAndFlush(new BufferResponse(TestBuffers.dataBuffer(10, 1, recycler),
                RECEIVER, 0, 0, DataType.DATA_BUFFER, 10));

        assertEquals("connection reset", future.cause().getMessage());
        verify(recycler, times(1)).recycle(any());
        channel.finishAndReleaseAll();
    }

    @Test
    void writeAfterTheChannelClosed_releasesTheResponse_andFailsThePromise() {
        sender.close();

        ChannelFuture future = sender.writeAndFlush(new BufferResponse(TestBuffers.dataBuffer(10, 1, recycler),
                RECEIVER, 0, 0, DataType.DATA_BUFFER, 10));

        assertFalse(future.isSuccess());
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void emptyBuffer_writesOnlyTheHeader_andRecyclesTheBufferAtOnce() {
        ChannelFuture future = sender.writeAndFlush(new BufferResponse(TestBuffers.dataBuffer(0, 0, recycler),
                RECEIVER, 3, 1, DataType.DATA_BUFFER, 0));

        assertTrue(future.isSuccess());
        verify(recycler, times(1)).recycle(any());
        ByteBuf header = sender.readOutbound();
        assertEquals(BufferResponse.frameLength(0), header.readableBytes());
        assertEquals(BufferResponse.frameLength(0), header.getInt(0));
        header.release();
        assertNull(sender.readOutbound());
    }

    @Test
    void responseAnnouncingBytesWithoutABuffer_isRejected() {
        EncoderException e = assertThrows(EncoderException.class, () -> sender.writeOutbound(
                new BufferResponse(null, RECEIVER, 0, 0, DataType.DATA_BUFFER, 10)));

        assertTrue(e.getMessage().contains("announces 10 bytes but carries no buffer"), e.getMessage());
        assertNull(sender.readOutbound());
    }

    @Test
    void responseWithAnAlreadyRecycledBuffer_isRejected_withoutRecyclingItAgain() {
        Buffer buffer = TestBuffers.dataBuffer(10, 1, recycler);
        BufferResponse response = new BufferResponse(buffer, RECEIVER, 0, 0, DataType.DATA_BUFFER, 10);
        buffer.recycleBuffer();

        EncoderException e = assertThrows(EncoderException.class, () -> sender.writeOutbound(response));

        assertTrue(e.getMessage().contains("already recycled"), e.getMessage());
        verify(recycler, times(1)).recycle(any());
        assertNull(sender.readOutbound());
    }

    @Test
    void objectsOtherThanMessages_passThroughUnchanged() {
        ByteBuf raw = sender.alloc().buffer(4).writeInt(42);

        sender.writeOutbound(raw);

        ByteBuf out = sender.readOutbound();
        assertSame(raw, out);
        out.release();
    }

    @Test
    void smallMessage_isOneFrameInOneByteBuf() {
        sender.writeOutbound(new CancelPartitionRequest(RECEIVER));

        ByteBuf frame = sender.readOutbound();
        assertEquals(Frame.HEADER_LENGTH + 16, frame.readableBytes());
        assertEquals(frame.readableBytes(), frame.getInt(0));
        assertEquals(CancelPartitionRequest.ID, frame.getByte(9));
        frame.release();
        assertNull(sender.readOutbound());
    }

    /**
     * Writes {@code response}, checks and releases the header ByteBuf (frame length counting the data, fixed part
     * only), and returns the data ByteBuf, which the caller releases.
     */
    private ByteBuf writeAndTakeData(BufferResponse response) {
        sender.writeOutbound(response);
        ByteBuf header = sender.readOutbound();
        assertEquals(BufferResponse.frameLength(0), header.readableBytes());
        assertEquals(BufferResponse.frameLength(response.bufferSize()), header.getInt(0));
        header.release();
        return sender.readOutbound();
    }

    private void releaseAllOutbound() {
        for (Object msg = sender.readOutbound(); msg != null; msg = sender.readOutbound()) {
            ((ByteBuf) msg).release();
        }
    }
}
