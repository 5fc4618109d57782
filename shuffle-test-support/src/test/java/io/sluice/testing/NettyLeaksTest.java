package io.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The one leak signature the leak check lets pass is exactly Netty's local-transport close race, nothing else. */
class NettyLeaksTest {

    private static final String HANDED_TO_CLOSING_LOCAL_PEER = "\nRecent access records: \n#1:\n"
            + "\tio.netty.util.ReferenceCountUtil.release(ReferenceCountUtil.java:90)\n"
            + "\tio.netty.channel.ChannelOutboundBuffer.remove(ChannelOutboundBuffer.java:300)\n"
            + "\tio.netty.channel.local.LocalChannel.doWrite(LocalChannel.java:390)\n"
            + "#2:\n\tio.sluice.netty.transport.NettyMessageEncoder.write(NettyMessageEncoder.java:34)\n";

    private static final String READ_BY_OUR_DECODER_THEN_DROPPED = "\nRecent access records: \n#1:\n"
            + "\tio.sluice.netty.transport.ClientMessageDecoder.channelRead(ClientMessageDecoder.java:120)\n"
            + "#2:\n\tio.netty.channel.local.LocalChannel.doWrite(LocalChannel.java:390)\n";

    @Test
    void frameWhoseLastAccessIsTheLocalHandOver_isTheKnownNettyRace() {
        assertTrue(NettyLeaks.isLocalTransportCloseRace(HANDED_TO_CLOSING_LOCAL_PEER));
    }

    @Test
    void frameTouchedAfterTheHandOver_orWithoutRecords_isALeak() {
        assertFalse(NettyLeaks.isLocalTransportCloseRace(READ_BY_OUR_DECODER_THEN_DROPPED));
        assertFalse(NettyLeaks.isLocalTransportCloseRace(""));
        assertFalse(NettyLeaks.isLocalTransportCloseRace("\nRecent access records: \n#1:\n\tio.sluice.X.y(X.java:1)\n"));
    }
}
