package io.sluice.netty.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * A refused TLS peer is logged exactly once, with its address and the reason, and its connection closed; a peer that
 * completed its handshake passes through untouched. The log is read where the tests' SLF4J binding writes it
 * (slf4j-simple, standard error).
 */
class TlsHandshakeGuardTest {

    private static final String REFUSED = "Refused data connection from";

    @Test
    void failedHandshakeFollowedByMoreErrors_isLoggedOnce_withAddressAndReason_andClosed() {
        EmbeddedChannel channel = new EmbeddedChannel(new TlsHandshakeGuard());
        List<String> lines = stderrLinesOf(() -> {
            channel.pipeline().fireUserEventTriggered(
                    new SslHandshakeCompletionEvent(new SSLHandshakeException("PKIX path building failed")));
            channel.pipeline().fireExceptionCaught(new SSLHandshakeException("a second error of the same peer"));
            channel.pipeline().fireExceptionCaught(new NotSslRecordException("and a third"));
        });
        List<String> refusals = lines.stream().filter(line -> line.contains(REFUSED)).toList();
        assertEquals(1, refusals.size(), "one refusal line per refused peer: " + lines);
        assertTrue(refusals.get(0).contains(String.valueOf(channel.remoteAddress())), refusals.get(0));
        assertTrue(refusals.get(0).contains("PKIX path building failed"), refusals.get(0));
        assertFalse(channel.isOpen(), "the refused connection is closed");
    }

    @Test
    void peerWithoutTls_isNamedAsSuch_notByTheBytesItSent() {
        EmbeddedChannel channel = new EmbeddedChannel(new TlsHandshakeGuard());
        List<String> lines = stderrLinesOf(() ->
                channel.pipeline().fireExceptionCaught(new NotSslRecordException("not an SSL/TLS record: 0000002a")));
        List<String> refusals = lines.stream().filter(line -> line.contains(REFUSED)).toList();
        assertEquals(1, refusals.size(), "one refusal line: " + lines);
        assertTrue(refusals.get(0).contains("does not speak TLS"), refusals.get(0));
        assertFalse(refusals.get(0).contains("0000002a"), "the peer's bytes stay out of the log: " + refusals.get(0));
    }

    @Test
    void successfulHandshake_logsNothing_andKeepsTheConnection() {
        EmbeddedChannel channel = new EmbeddedChannel(new TlsHandshakeGuard());
        List<String> lines = stderrLinesOf(() -> channel.pipeline().fireUserEventTriggered(
                SslHandshakeCompletionEvent.SUCCESS));
        assertTrue(lines.stream().noneMatch(line -> line.contains(REFUSED)), lines.toString());
        assertTrue(channel.isOpen());
        channel.finishAndReleaseAll();
    }

    /** Runs {@code action} with standard error captured (slf4j-simple looks System.err up at every line). */
    private static List<String> stderrLinesOf(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return Arrays.asList(captured.toString(StandardCharsets.UTF_8).split("\\R"));
    }
}
