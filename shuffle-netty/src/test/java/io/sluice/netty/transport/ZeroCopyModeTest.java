package io.sluice.netty.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.local.LocalAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** shuffle.blocking.zero-copy: which consumers get a blocking partition's data by sendfile. */
class ZeroCopyModeTest {

    /** TEST-NET-1 (RFC 5737): never an address of this host. */
    private static final InetSocketAddress OTHER_HOST = new InetSocketAddress(address(192, 0, 2, 7), 4000);

    @Test
    void auto_sendsFilesToOtherHostsOnly() throws Exception {
        assertTrue(ZeroCopyMode.AUTO.sendsFilesTo(OTHER_HOST));
        assertFalse(ZeroCopyMode.AUTO.sendsFilesTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000)));
        assertFalse(ZeroCopyMode.AUTO.sendsFilesTo(new InetSocketAddress("::1", 4000)));
        assertFalse(ZeroCopyMode.AUTO.sendsFilesTo(new InetSocketAddress(address(127, 3, 4, 5), 4000)),
                "all of 127/8 is loopback");
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress own : Collections.list(nic.getInetAddresses())) {
                assertFalse(ZeroCopyMode.AUTO.sendsFilesTo(new InetSocketAddress(own, 4000)),
                        "a consumer on this host's own address " + own + " is on this host");
            }
        }
    }

    @Test
    void alwaysAndNever_ignoreTheAddress_andNoModeSendsFilesOverTheLocalTransport() throws SocketException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000);
        assertTrue(ZeroCopyMode.ALWAYS.sendsFilesTo(loopback));
        assertTrue(ZeroCopyMode.ALWAYS.sendsFilesTo(OTHER_HOST));
        assertFalse(ZeroCopyMode.NEVER.sendsFilesTo(loopback));
        assertFalse(ZeroCopyMode.NEVER.sendsFilesTo(OTHER_HOST));
        assertFalse(ZeroCopyMode.AUTO.sendsFilesTo(new LocalAddress("in-jvm")));
    }

    @Test
    void of_readsTheOptionsValues_andNamesTheOptionForAnyOther() {
        assertEquals(ZeroCopyMode.AUTO, ZeroCopyMode.of("auto"));
        assertEquals(ZeroCopyMode.ALWAYS, ZeroCopyMode.of(" Always "));
        assertEquals(ZeroCopyMode.NEVER, ZeroCopyMode.of("never"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ZeroCopyMode.of("sometimes"));
        assertEquals("shuffle.blocking.zero-copy=sometimes is not one of auto, always, never", e.getMessage());
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
