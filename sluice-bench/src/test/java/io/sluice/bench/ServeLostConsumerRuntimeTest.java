package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * serve's verdict when its consumer process is lost mid-run: killed, stopped, or refused because another process
 * reads its subpartitions. serve fails, names the subpartitions no consumer confirmed, and counts only what was
 * confirmed. Two or three processes on loopback; skipped when no shuffle implementation is on the class path.
 *
 * <p>The workload is bytes, not a duration: a serve process cannot end before its consumer has read all but a pool's
 * worth of them, so a consumer that has read some is mid-run however slowly the processes start.
 */
@Tag("runtime")
class ServeLostConsumerRuntimeTest {

    private static final long START_SECONDS = 60;
    /**
     * The longest a serve process may take to end once its consumer is lost: a guard against a hang, not a figure
     * (it drops the records left, and a stopped consumer is cut off after the heartbeat timeout of {@link #HEARTBEAT}).
     */
    private static final long END_SECONDS = 60;
    /** Long enough that a consumer is still reading it when the test acts, at any speed the machine has. */
    private static final String BYTES = "2g";
    /**
     * A short heartbeat, so that a stopped consumer's connection is closed within seconds; not so short that a
     * running process on a busy machine misses it.
     */
    private static final String HEARTBEAT = " --conf shuffle.netty.heartbeat-interval=1s"
            + " --conf shuffle.netty.heartbeat-timeout=8s";
    /** A heartbeat that outlasts a consumer the test keeps stopped while another process starts. */
    private static final String PATIENT_HEARTBEAT = " --conf shuffle.netty.heartbeat-timeout=10min";
    /** The amount in a consumer's --progress tty line, e.g. {@code " 12%  0.37 / 2.15 GB  1.20 GB/s  ETA 0:03"}. */
    private static final Pattern PROGRESS = Pattern.compile("%  (\\d+\\.\\d\\d) / ");

    @BeforeEach
    void needsTheImplementation() {
        ShuffleRuntime.assumeAvailable();
    }

    @Test
    void consumerKilledMidRun_failsServeNamingEveryUnconfirmedSubpartition() throws Exception {
        try (CliProcess serve = CliProcess.start(("serve --producers 2 --consumers 2 --bytes " + BYTES
                + " --json --progress off").split(" "))) {
            String line = serve.firstLine(START_SECONDS);

            try (CliProcess consume = CliProcess.start((line + " --progress tty").split(" "))) {
                awaitRecordsRead(consume);
                consume.kill();

                String verdict = failedServe(serve);
                assertTrue(verdict.contains("4 of 4 subpartitions were not confirmed read to their end (producer 0"
                        + " subpartition 0, producer 0 subpartition 1, producer 1 subpartition 0, producer 1"
                        + " subpartition 1)"), verdict);
                assertTrue(verdict.contains("the consumers confirmed 0 records (0 bytes) of the "), verdict);
                assertEquals(0, JsonFields.number(verdict, "records"), verdict);
                assertEquals(0, JsonFields.number(verdict, "bytes"), verdict);
            }
        }
    }

    @Test
    void consumerStoppedMidRun_failsServeOnceTheHeartbeatTimeoutCutsItOff() throws Exception {
        try (CliProcess serve = CliProcess.start(("serve --producers 2 --consumers 2 --bytes " + BYTES
                + " --json --progress off" + HEARTBEAT).split(" "))) {
            String line = serve.firstLine(START_SECONDS);

            try (CliProcess consume = CliProcess.start((line + HEARTBEAT + " --progress tty").split(" "))) {
                awaitRecordsRead(consume);
                consume.stop();

                String verdict = failedServe(serve);
                assertTrue(verdict.contains("4 of 4 subpartitions were not confirmed read to their end"), verdict);
                assertEquals(0, JsonFields.number(verdict, "records"), verdict);
                assertEquals(0, JsonFields.number(verdict, "bytes"), verdict);
            }
        }
    }

    @Test
    void secondConsumerRefused_failsServeNamingTheSubpartitionsItHeldAndCountingOnlyTheFirstConsumersRecords()
            throws Exception {
        try (CliProcess serve = CliProcess.start(("serve --producers 2 --consumers 2 --bytes " + BYTES
                + " --json --progress off" + PATIENT_HEARTBEAT).split(" "))) {
            String line = serve.firstLine(START_SECONDS);

            // The first consumer reads producer 0's partition only, and is held mid-run so that it keeps it.
            try (CliProcess first = CliProcess.start((firstPartitionOnly(line) + PATIENT_HEARTBEAT
                    + " --json --progress tty").split(" "))) {
                awaitRecordsRead(first);
                first.stop();
                // The second asks for both partitions: it gets producer 1's, is refused producer 0's, and fails.
                try (CliProcess second = CliProcess.start((line + " --json --progress off").split(" "))) {
                    assertEquals(Main.EXIT_FAIL, second.waitFor(END_SECONDS), second.lastLine());
                    assertTrue(second.lastLine().contains("already has a reader"), second.lastLine());
                }
                first.resume();

                String verdict = failedServe(serve);
                assertTrue(verdict.contains("2 of 4 subpartitions were not confirmed read to their end (producer 1"
                        + " subpartition 0, producer 1 subpartition 1)"), verdict);
                assertEquals(Main.EXIT_PASS, first.waitFor(END_SECONDS), first.lastLine());
                String read = first.lastLine();
                assertEquals(JsonFields.number(read, "records"), JsonFields.number(verdict, "records"), verdict);
                assertEquals(JsonFields.number(read, "bytes"), JsonFields.number(verdict, "bytes"), verdict);
            }
        }
    }

    /** Waits until the consumer's progress line shows records read (at least 0.01 GB), so it is mid-run. */
    private static void awaitRecordsRead(CliProcess consume) {
        AtomicLong lengthRead = new AtomicLong();
        // The file is parsed again only when it grew: a progress line comes every quarter second.
        Await.until(() -> consume.stderrLength() != lengthRead.get() && readSoFar(consume, lengthRead) > 0,
                Duration.ofSeconds(START_SECONDS), () -> "the consumer read nothing; its stderr: " + stderrOf(consume));
    }

    private static double readSoFar(CliProcess consume, AtomicLong lengthRead) {
        lengthRead.set(consume.stderrLength());
        double gigabytes = 0;
        Matcher amount = PROGRESS.matcher(stderrOf(consume));
        while (amount.find()) {
            gigabytes = Math.max(gigabytes, Double.parseDouble(amount.group(1)));
        }
        return gigabytes;
    }

    private static String stderrOf(CliProcess process) {
        try {
            return process.stderr();
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** @return the JSON summary of a serve process that failed, after asserting that it did */
    private static String failedServe(CliProcess serve) throws Exception {
        int status = serve.waitFor(END_SECONDS);
        String verdict = serve.lastLine();
        assertEquals(Main.EXIT_FAIL, status, verdict + "\n" + serve.stderr());
        assertEquals("FAIL", JsonFields.string(verdict, "verdict"), verdict);
        assertEquals(0, JsonFields.number(verdict, "buffersNotReturned"), verdict);
        return verdict;
    }

    /** @return the consume line with only the first of its partitions */
    private static String firstPartitionOnly(String line) {
        return line.replaceFirst("(--partitions [0-9a-fA-F]+)(,[0-9a-fA-F]+)+", "$1");
    }
}
