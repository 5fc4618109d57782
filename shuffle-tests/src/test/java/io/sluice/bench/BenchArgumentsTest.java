package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchArgumentsTest {

    @Test
    void noArguments_isTheDocumentedDefaultRun() throws Exception {
        BenchOptions options = BenchArguments.parse(new String[0]);

        assertEquals(Command.RUN, options.command());
        assertFalse(options.help());
        assertEquals(4, options.producers());
        assertEquals(4, options.consumers());
        assertEquals(2, options.environments());
        assertEquals(4L << 30, options.workload().totalBytes());
        assertNull(options.workload().duration());
        assertEquals("mixed", options.workload().sizes().toString());
        assertEquals(1, options.workload().seed());
        assertNull(options.workload().corrupt());
        assertEquals(Duration.ofMinutes(10), options.timeout());
        assertEquals(Duration.ofMinutes(1), options.sampleInterval());
        assertEquals(ProgressMode.AUTO, options.progress());
        assertFalse(options.json());
        assertTrue(options.shuffleConfig().toMap().isEmpty(), "library defaults apply: " + options.shuffleConfig());
    }

    @Test
    void everyOptionOfRun_isReadInBothSpellings() throws Exception {
        BenchOptions options = BenchArguments.parse(new String[] {"run", "--producers=3", "--consumers", "5",
            "--environments", "3", "--record-size", "64..4k", "--duration", "30s", "--transport", "nio",
            "--flush-interval", "0", "--memory", "128m", "--segment-size", "64k", "--buffers-per-channel", "4",
            "--floating-buffers=16", "--conf", "shuffle.netty.server-threads=1", "--seed", "-7", "--timeout", "2min",
            "--progress", "plain", "--json", "--corrupt-record", "14:9"});

        assertEquals(3, options.producers());
        assertEquals(5, options.consumers());
        assertEquals(15, options.channels());
        assertEquals(3, options.environments());
        assertEquals(64, options.workload().sizes().min());
        assertEquals(4096, options.workload().sizes().max());
        assertEquals(Duration.ofSeconds(30), options.workload().duration());
        assertTrue(options.workload().timed());
        assertEquals(-7, options.workload().seed());
        assertEquals(new CorruptRecord(14, 9), options.workload().corrupt());
        assertEquals("nio", options.shuffleConfig().get(ShuffleOptions.NETTY_TRANSPORT));
        assertEquals(Duration.ZERO, options.shuffleConfig().get(ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
        assertEquals(128L << 20, options.shuffleConfig().get(ShuffleOptions.MEMORY_TOTAL));
        assertEquals(64L << 10, options.shuffleConfig().get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
        assertEquals(4, options.shuffleConfig().get(ShuffleOptions.BUFFERS_PER_CHANNEL));
        assertEquals(16, options.shuffleConfig().get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE));
        assertEquals(1, options.shuffleConfig().get(ShuffleOptions.NETTY_SERVER_THREADS));
        assertEquals(Duration.ofMinutes(2), options.timeout());
        assertEquals(ProgressMode.PLAIN, options.progress());
        assertTrue(options.json());
    }

    @Test
    void partitionTypeAndCompression_areRead_andAWrongTypeIsAUsageError() throws Exception {
        BenchOptions options = BenchArguments.parse(new String[] {"--partition-type", "blocking",
            "--compression", "lz4"});

        assertTrue(options.blocking());
        assertEquals("lz4", options.shuffleConfig().get(io.sluice.api.ShuffleOptions.COMPRESSION_CODEC));
        assertFalse(BenchArguments.parse(new String[0]).blocking());
        UsageException wrong = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> BenchArguments.parse(new String[] {"--partition-type", "batch"}));
        assertTrue(wrong.getMessage().contains("--partition-type"), wrong.getMessage());
    }

    @Test
    void help_isRecognisedWithoutCheckingTheRest() throws Exception {
        BenchOptions options = BenchArguments.parse(new String[] {"serve", "--producers", "0", "--help"});

        assertTrue(options.help());
        assertEquals(Command.SERVE, options.command());
    }

    @Test
    void theLineServePrints_parsesBackIntoTheSameTicket() throws Exception {
        List<ResultPartitionId> ids = List.of(ResultPartitionId.random(), ResultPartitionId.random());
        ServeTicket ticket = new ServeTicket("10.1.2.3", 40123, "sluice-serve-1a2b3c4d", ids, 3);
        Workload workload = new Workload(io.sluice.tests.support.RecordSizes.fixed(100), 1L << 30, null, 1, null);

        String line = ticket.toCommandLine("64k", workload);
        BenchOptions options = BenchArguments.parse(line.split(" "));

        assertEquals(Command.CONSUME, options.command());
        assertEquals(ticket, options.ticket());
        assertEquals(2, options.producers());
        assertEquals(3, options.consumers());
        assertEquals(1L << 30, options.workload().totalBytes());
        assertEquals(64L << 10, options.shuffleConfig().get(ShuffleOptions.MEMORY_SEGMENT_SIZE));
    }

    @Test
    void timedServe_passesItsDurationToTheConsumer() throws Exception {
        ServeTicket ticket = new ServeTicket("::1", 1, "p", List.of(ResultPartitionId.random()), 1);
        Workload workload = new Workload(io.sluice.tests.support.RecordSizes.fixed(100), 0, Duration.ofSeconds(20), 1, null);

        String[] args = ticket.toCommandLine("32k", workload).replace("::1:1", "[::1]:1").split(" ");

        assertEquals(Duration.ofSeconds(20), BenchArguments.parse(args).workload().duration());
        assertEquals("::1", BenchArguments.parse(args).ticket().host());
    }

    @Test
    void unknownCommand_listsTheCommands() {
        assertUsage("unknown command 'srve'; the commands are run (the default), serve, consume and jmh; see --help", "srve");
    }

    @Test
    void unknownOption_suggestsTheClosest() {
        assertUsage("unknown option --prodcers; did you mean --producers?", "--prodcers", "4");
        assertUsage("unknown option --segmentsize; did you mean --segment-size?", "--segmentsize=64k");
    }

    @Test
    void strayArgument_isRefused() {
        assertUsage("unexpected argument '4'; options start with --, see --help", "--json", "4");
        assertUsage("unexpected argument '--'; options start with --, see --help", "--");
    }

    @Test
    void optionOfAnotherCommand_namesTheCommand() {
        assertUsage("--connect is not an option of 'run'; see run --help", "--connect", "h:1");
        assertUsage("--environments is not an option of 'serve'; see serve --help", "serve", "--environments", "2");
        assertUsage("--producers is not an option of 'consume'; see consume --help", "consume", "--producers", "2");
    }

    @Test
    void missingValue_showsTheForm() {
        assertUsage("--producers needs a value: --producers N", "--producers");
    }

    @Test
    void flagWithAValue_isRefused() {
        assertUsage("--json takes no value", "--json=yes");
    }

    @Test
    void repeatedOption_isRefused() {
        assertUsage("--producers is given twice", "--producers", "2", "--producers", "3");
    }

    @Test
    void notAWholeNumber_showsAnExample() {
        assertUsage("--consumers 'four' is not a whole number, e.g. --consumers 4", "--consumers", "four");
        assertUsage("--seed '1.5' is not a whole number, e.g. --seed 4", "--seed", "1.5");
    }

    @Test
    void countsOutOfRange_giveTheRange() {
        assertUsage("--producers 0 is out of range; use 1 to 4096", "--producers", "0");
        assertUsage("--environments 65 is out of range; use 1 to 64", "--environments", "65");
        assertUsage("--producers x --consumers = 1000000 channels, more than 100000; lower one of them",
                "--producers", "1000", "--consumers", "1000");
    }

    @Test
    void wrongSizes_sayWhyAndTheFormsAccepted() {
        assertUsage("--bytes: '4x' is not a byte size (unknown unit 'x'); use " + io.sluice.api.ByteSizes.FORMS, "--bytes", "4x");
        assertUsage("--bytes must be at least 1 byte, e.g. --bytes 1g", "--bytes", "0");
        assertUsageStartsWith("--record-size: 'big' is not a byte size", "--record-size", "big");
        assertUsage("--record-size: 10 bytes is too small: every record carries a 24-byte header (channel, sequence, "
                + "timestamp, checksum), so use at least 24", "--record-size", "10:1,100:1");
    }

    @Test
    void timedRunWithoutTimeout_bringsItsOwnDeadline_durationPlusTenMinutes() throws Exception {
        BenchOptions hour = BenchArguments.parse(new String[] {"--duration", "1h"});
        BenchOptions explicit = BenchArguments.parse(new String[] {"--duration", "1h", "--timeout", "5min"});
        BenchOptions consume = BenchArguments.parse(new String[] {"consume", "--duration", "20min", "--connect", "h:1",
            "--producer-id", "p", "--partitions", "0123456789abcdef0123456789abcdef", "--subpartitions", "2"});

        assertEquals(Duration.ofMinutes(70), hour.timeout());
        assertEquals(Duration.ofMinutes(5), explicit.timeout(), "an explicit --timeout still wins");
        assertEquals(Duration.ofMinutes(30), consume.timeout());
        assertTrue(Usage.text(Command.RUN).contains("with --duration: the duration + 10min"), Usage.text(Command.RUN));
    }

    @Test
    void sampleInterval_isReadAndMustBePositive() throws Exception {
        assertEquals(Duration.ofSeconds(1), BenchArguments.parse(new String[] {"--sample-interval", "1s"}).sampleInterval());
        assertUsage("--sample-interval must be longer than 0, e.g. --sample-interval 1min", "--sample-interval", "0");
    }

    @Test
    void durationsAndSizes_readTheLibrarysFormat_microsecondsAndDaysToo() throws Exception {
        BenchOptions options = BenchArguments.parse(new String[] {"--flush-interval", "500us", "--duration", "1d",
            "--memory", "64mb"});
        assertEquals(Duration.ofDays(1), options.workload().duration());
        assertEquals(Duration.ofNanos(500_000),
                options.shuffleConfig().get(io.sluice.api.ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
        assertEquals(64L << 20, options.shuffleConfig().get(io.sluice.api.ShuffleOptions.MEMORY_TOTAL));
    }

    @Test
    void wrongDurations_sayWhyAndTheFormsAccepted() {
        assertUsage("--duration: '5 weeks' is not a duration (unknown unit 'weeks'); use " + io.sluice.api.Durations.FORMS, "--duration", "5 weeks");
        assertUsage("--timeout: 'soon' is not a duration (no leading number); use " + io.sluice.api.Durations.FORMS, "--timeout", "soon");
        assertUsage("--duration must be longer than 0, e.g. --duration 30s", "--duration", "0s");
        assertUsage("--timeout must be longer than 0, e.g. --timeout 5min", "--timeout", "0");
        assertUsage("--bytes and --duration exclude each other: give one", "--bytes", "1g", "--duration", "10s");
    }

    @Test
    void libraryOptionsOutOfRange_areReportedUnderTheirOptionNames() {
        assertUsageStartsWith("--transport: invalid value 'tcp'; must be one of auto, nio, epoll, local", "--transport", "tcp");
        assertUsageStartsWith("--memory: 16k is less than one segment (--segment-size = 32k); raise --memory or lower --segment-size",
                "--memory", "16k");
        assertUsageStartsWith("--buffers-per-channel", "--buffers-per-channel", "0");
        assertUsageStartsWith("--segment-size", "--segment-size", "lots");
    }

    @Test
    void localTransport_isRefusedAcrossProcesses() {
        assertUsage("--transport local connects environments inside one process only; 'serve' talks to another process:"
                + " use auto, nio or epoll", "serve", "--transport", "local");
    }

    @Test
    void conf_takesOtherLibraryOptionsOnly() {
        assertUsage("--conf 'shuffle.netty.server-threads' is not KEY=VALUE, e.g. --conf shuffle.netty.server-threads=1",
                "--conf", "shuffle.netty.server-threads");
        assertUsage("--conf 'akka.threads' is not a library option; they start with 'shuffle.' (or are shuffle-service-factory.class)",
                "--conf", "akka.threads=2");
        assertUsage("--conf shuffle.memory.total: use --memory instead", "--conf", "shuffle.memory.total=1g");
        assertUsage("shuffle.memroy.segments: unknown option; did you mean --segment-size?",
                "--conf", "shuffle.memroy.segments=4");
    }

    @Test
    void corruptRecord_mustNameAnExistingChannel() {
        assertUsage("--corrupt-record '3' is not CHANNEL:SEQUENCE; e.g. --corrupt-record 1:1000 damages record 1000 of channel 1",
                "--corrupt-record", "3");
        assertUsage("--corrupt-record 16:0: channels are 0..15 and sequences start at 0; e.g. --corrupt-record 1:1000 damages"
                + " record 1000 of channel 1", "--corrupt-record", "16:0");
    }

    @Test
    void progress_mustBeAKnownMode() {
        assertUsage("--progress 'fancy' is not one of auto tty plain off", "--progress", "fancy");
    }

    @Test
    void consume_needsWhatServePrints() {
        assertUsage("consume needs --connect HOST:PORT; pass the line that 'sluice-bench serve' prints", "consume");
        assertUsage("consume needs --partitions HEX,...; pass the line that 'sluice-bench serve' prints",
                "consume", "--connect", "h:1", "--producer-id", "p", "--subpartitions", "1");
    }

    @Test
    void consume_refusesMalformedAddressesAndIds() {
        String id = ResultPartitionId.random().toString();
        assertUsage("--connect 'localhost' is not HOST:PORT with a port from 1 to 65535, e.g. --connect 10.0.0.5:41234",
                "consume", "--connect", "localhost", "--producer-id", "p", "--partitions", id, "--subpartitions", "1");
        assertUsage("--connect 'h:70000' is not HOST:PORT with a port from 1 to 65535, e.g. --connect 10.0.0.5:41234",
                "consume", "--connect", "h:70000", "--producer-id", "p", "--partitions", id, "--subpartitions", "1");
        assertUsage("--partitions: 'xyz' is not a partition id (32 hex digits, as serve prints them)",
                "consume", "--connect", "h:1", "--producer-id", "p", "--partitions", id + ",xyz", "--subpartitions", "1");
        assertUsage("--producer-id must not be empty",
                "consume", "--connect", "h:1", "--producer-id", " ", "--partitions", id, "--subpartitions", "1");
        assertUsage("--subpartitions 0 is out of range; use 1 to 4096",
                "consume", "--connect", "h:1", "--producer-id", "p", "--partitions", id, "--subpartitions", "0");
    }

    private static void assertUsage(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> BenchArguments.parse(args));
        assertEquals(expected, e.getMessage());
    }

    private static void assertUsageStartsWith(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> BenchArguments.parse(args));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
