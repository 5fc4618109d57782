package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** serve and consume as two processes on loopback; skipped when no shuffle implementation is on the class path. */
@Tag("runtime")
class ServeConsumeRuntimeTest {

    private static final long START_SECONDS = 60;
    private static final long RUN_SECONDS = 100;

    @BeforeEach
    void needsTheImplementation() {
        ShuffleRuntime.assumeAvailable();
    }

    @Test
    void consumerProcess_readsEveryRecordTheServeProcessSends() throws Exception {
        try (CliProcess serve = CliProcess.start("serve", "--producers", "2", "--consumers", "3", "--bytes", "48m",
                "--json", "--progress", "off")) {
            String line = serve.firstLine(START_SECONDS);
            assertTrue(line.startsWith("consume --connect 127.0.0.1:"), line);

            try (CliProcess consume = CliProcess.start((line + " --json --progress off").split(" "))) {
                int consumed = consume.waitFor(RUN_SECONDS);
                int served = serve.waitFor(RUN_SECONDS);

                String consumer = consume.lastLine();
                String producer = serve.lastLine();
                assertEquals(Main.EXIT_PASS, consumed, consumer + "\n" + consume.stderr());
                assertEquals(Main.EXIT_PASS, served, producer + "\n" + serve.stderr());
                assertEquals("PASS", JsonFields.string(consumer, "verdict"));
                assertEquals(6, JsonFields.number(consumer, "channels"));
                assertEquals(JsonFields.number(producer, "records"), JsonFields.number(consumer, "records"));
                assertEquals(JsonFields.number(producer, "bytes"), JsonFields.number(consumer, "bytes"));
                assertTrue(JsonFields.number(consumer, "bytes") >= 48L << 20, consumer);
                assertEquals(0, JsonFields.number(consumer, "buffersNotReturned"));
                assertEquals(0, JsonFields.number(producer, "buffersNotReturned"));
            }
        }
    }

    @Test
    void recordCorruptedInTheServeProcess_failsTheConsumerNamingTheChannel() throws Exception {
        // Channel 4 = producer 1 -> consumer 1 of 2 x 3.
        try (CliProcess serve = CliProcess.start("serve", "--producers", "2", "--consumers", "3", "--bytes", "16m",
                "--corrupt-record", "4:10", "--progress", "off")) {
            String line = serve.firstLine(START_SECONDS);

            try (CliProcess consume = CliProcess.start((line + " --progress off").split(" "))) {
                int status = consume.waitFor(RUN_SECONDS);

                String table = consume.stdout();
                assertEquals(Main.EXIT_FAIL, status, table);
                assertTrue(table.contains("FAIL: RecordVerificationException: channel producer 1 -> consumer 1, input channel 1"
                        + " (record channel 4): record 10 ("), table);
            }
        }
    }
}
