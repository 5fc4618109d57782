package io.sluice.bench.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.CorruptRecord;
import io.sluice.bench.options.ProgressMode;
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.options.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCliTest {

    @Test
    void noArguments_isTheDocumentedDefaultRun() throws Exception {
        BenchOptions options = BenchCli.parse(new String[0]);

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
        BenchOptions options = BenchCli.parse(new String[] {"run", "--producers=3", "--consumers", "5",
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
        BenchOptions options = BenchCli.parse(new String[] {"--partition-type", "blocking",
            "--compression", "lz4"});

        assertTrue(options.blocking());
        assertEquals("lz4", options.shuffleConfig().get(io.sluice.api.ShuffleOptions.COMPRESSION_CODEC));
        assertFalse(BenchCli.parse(new String[0]).blocking());
        assertEquals(512L << 20, options.warmUpBytes(), "the default warm-up");
        assertEquals(0, BenchCli.parse(new String[] {"--warmup-bytes", "0"}).warmUpBytes());
        assertEquals(1L << 30, BenchCli.parse(new String[] {"--warmup-bytes", "1g"}).warmUpBytes());
        assertEquals(30, options.warmUpRounds(), "the default most warm-up rounds");
        assertEquals(3, BenchCli.parse(new String[] {"--warmup-rounds", "3"}).warmUpRounds());
        assertUsageStartsWith("--warmup-rounds 0 is out of range; use 1 to 100", "--warmup-rounds", "0");
        assertUsageStartsWith("Invalid value for option '--warmup-bytes': '-1' is not a byte size", "--warmup-bytes",
                "-1");
        assertUsage("Invalid value for option '--partition-type': expected one of [PIPELINED, BLOCKING] (case-insensitive)"
                + " but was 'batch'", "--partition-type", "batch");
    }

    @Test
    void help_isRecognisedWithoutCheckingTheRest() throws Exception {
        BenchOptions options = BenchCli.parse(new String[] {"serve", "--producers", "0", "--help"});

        assertTrue(options.help());
        assertEquals(Command.SERVE, options.command());
    }

    @Test
    void theLineServePrints_parsesBackIntoTheSameTicket() throws Exception {
        List<ResultPartitionId> ids = List.of(ResultPartitionId.random(), ResultPartitionId.random());
        ServeTicket ticket = new ServeTicket("10.1.2.3", 40123, "sluice-serve-1a2b3c4d", ids, 3);
        Workload workload = new Workload(io.sluice.tests.support.RecordSizes.fixed(100), 1L << 30, null, 1, null);

        String line = ticket.toCommandLine("64k", workload);
        BenchOptions options = BenchCli.parse(line.split(" "));

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

        assertEquals(Duration.ofSeconds(20), BenchCli.parse(args).workload().duration());
        assertEquals("::1", BenchCli.parse(args).ticket().host());
    }

    @Test
    void unknownCommand_listsTheCommands() {
        assertUsage("unexpected argument 'srve'; did you mean serve?", "srve");
        assertUsage("unexpected argument 'bogus'; the commands are run, serve, consume, chaos, latency and jmh; see run --help", "bogus");
    }

    @Test
    void unknownOption_suggestsTheClosest() {
        assertUsage("unknown option --prodcers; did you mean --producers?", "--prodcers", "4");
        assertUsage("unknown option --segmentsize; did you mean --segment-size?", "--segmentsize=64k");
        assertUsage("unknown option --consumer; did you mean --consumers?", "--consumer", "2");
        assertUsage("unknown option --sed; did you mean --seed?", "chaos", "--sed", "3");
    }

    @Test
    void strayArgument_isRefused() {
        assertUsage("unexpected argument '4'; the commands are run, serve, consume, chaos, latency and jmh; see run --help",
                "--json", "4");
        // "--" ends the options, as in every POSIX tool: what follows is an argument, and run takes none.
        assertUsage("unexpected argument '--json'; the commands are run, serve, consume, chaos, latency and jmh; see run --help", "--", "--json");
        assertUsage("--json comes before the command 'serve'; options follow the command word", "--json", "serve");
    }

    @Test
    void optionOfAnotherCommand_namesTheCommand() {
        assertUsage("--connect is not an option of 'run' but of 'consume'; see run --help", "--connect", "h:1");
        assertUsage("--environments is not an option of 'serve' but of 'run'; see serve --help", "serve", "--environments", "2");
        assertUsage("--producers is not an option of 'consume' but of 'run'; see consume --help", "consume", "--producers", "2",
                "--connect", "h:1", "--producer-id", "p", "--partitions", ResultPartitionId.random().toString(),
                "--subpartitions", "1");
    }

    @Test
    void missingValue_showsTheForm() {
        assertUsage("Missing required parameter for option '--producers' (N)", "--producers");
    }

    @Test
    void flagWithAValue_isRefused() {
        assertUsage("Invalid value for option '--json': 'yes' is not a boolean", "--json=yes");
    }

    @Test
    void repeatedOption_isRefused() {
        assertUsage("option '--producers' (N) should be specified only once", "--producers", "2", "--producers", "3");
    }

    @Test
    void notAWholeNumber_showsAnExample() {
        assertUsage("Invalid value for option '--consumers': 'four' is not an int", "--consumers", "four");
        assertUsage("Invalid value for option '--seed': '1.5' is not a long", "--seed", "1.5");
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
        assertUsage("Invalid value for option '--bytes': '4x' is not a byte size (unknown unit 'x'); use "
                + io.sluice.api.ByteSizes.FORMS, "--bytes", "4x");
        assertUsage("--bytes must be at least 1 byte, e.g. --bytes 1g", "--bytes", "0");
        assertUsageStartsWith("Invalid value for option '--record-size': 'big' is not a byte size", "--record-size", "big");
        assertUsage("--record-size: 10 bytes is too small: every record carries a 24-byte header (channel, sequence, "
                + "timestamp, checksum), so use at least 24", "--record-size", "10:1,100:1");
    }

    @Test
    void timedRunWithoutTimeout_bringsItsOwnDeadline_durationPlusTenMinutes() throws Exception {
        BenchOptions hour = BenchCli.parse(new String[] {"--duration", "1h"});
        BenchOptions explicit = BenchCli.parse(new String[] {"--duration", "1h", "--timeout", "5min"});
        BenchOptions consume = BenchCli.parse(new String[] {"consume", "--duration", "20min", "--connect", "h:1",
            "--producer-id", "p", "--partitions", "0123456789abcdef0123456789abcdef", "--subpartitions", "2"});

        assertEquals(Duration.ofMinutes(70), hour.timeout());
        assertEquals(Duration.ofMinutes(5), explicit.timeout(), "an explicit --timeout still wins");
        assertEquals(Duration.ofMinutes(30), consume.timeout());
        String help = BenchCli.commandLine().getUsageMessage().replaceAll("\n +", " ");
        assertTrue(help.contains("with --duration: the duration + 10min"), help);
    }

    @Test
    void help_formatsEveryDescription_aPercentSignIncluded() {
        // picocli formats descriptions with String.format: a bare '%' makes it warn on stderr and print the raw text.
        PrintStream stderr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        String help;
        try {
            System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
            help = BenchCli.commandLine().getUsageMessage().replaceAll("\n +", " ");
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8), "picocli's warnings while formatting --help");
        assertTrue(help.contains("worked less than 5% of the round's time"), help);
    }

    @Test
    void sampleInterval_isReadAndMustBePositive() throws Exception {
        assertEquals(Duration.ofSeconds(1), BenchCli.parse(new String[] {"--sample-interval", "1s"}).sampleInterval());
        assertUsage("--sample-interval must be longer than 0, e.g. --sample-interval 1min", "--sample-interval", "0");
    }

    @Test
    void durationsAndSizes_readTheLibrarysFormat_microsecondsAndDaysToo() throws Exception {
        BenchOptions options = BenchCli.parse(new String[] {"--flush-interval", "1500us", "--duration", "1d",
            "--memory", "64mb"});
        assertEquals(Duration.ofDays(1), options.workload().duration());
        assertEquals(Duration.ofNanos(1_500_000),
                options.shuffleConfig().get(io.sluice.api.ShuffleOptions.OUTPUT_FLUSH_INTERVAL));
        assertEquals(64L << 20, options.shuffleConfig().get(io.sluice.api.ShuffleOptions.MEMORY_TOTAL));
    }

    @Test
    void wrongDurations_sayWhyAndTheFormsAccepted() {
        assertUsage("Invalid value for option '--duration': '5 weeks' is not a duration (unknown unit 'weeks'); use "
                + io.sluice.api.Durations.FORMS, "--duration", "5 weeks");
        assertUsage("Invalid value for option '--timeout': 'soon' is not a duration (no leading number); use "
                + io.sluice.api.Durations.FORMS, "--timeout", "soon");
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
        assertUsage("Invalid value for option '--segment-size': 'lots' is not a byte size (no leading number); use "
                + io.sluice.api.ByteSizes.FORMS, "--segment-size", "lots");
    }

    @Test
    void localTransport_isRefusedAcrossProcesses() {
        assertUsage("--transport local connects environments inside one process only; 'serve' talks to another process:"
                + " use auto, nio or epoll", "serve", "--transport", "local");
    }

    @Test
    void conf_takesOtherLibraryOptionsOnly() {
        assertUsage("Value for option '--conf' (KEY=VALUE) should be in KEY=VALUE format but was shuffle.netty.server-threads",
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
    void progress_mustBeAKnownMode() throws Exception {
        assertUsage("Invalid value for option '--progress': expected one of [AUTO, TTY, PLAIN, OFF] (case-insensitive)"
                + " but was 'fancy'", "--progress", "fancy");
        assertEquals(ProgressMode.TTY, BenchCli.parse(new String[] {"--progress", "tty"}).progress());
    }

    @Test
    void consume_needsWhatServePrints() {
        assertUsage("Missing required options: '--connect=HOST:PORT', '--producer-id=ID', '--partitions=HEX,...',"
                + " '--subpartitions=N'; pass the line that 'sluice-bench serve' prints", "consume");
        assertUsage("Missing required option: '--partitions=HEX,...'; pass the line that 'sluice-bench serve' prints",
                "consume", "--connect", "h:1", "--producer-id", "p", "--subpartitions", "1");
    }

    @Test
    void consume_refusesMalformedAddressesAndIds() {
        String id = ResultPartitionId.random().toString();
        assertUsage("--connect 'localhost' is not HOST:PORT with a port from 1 to 65535, e.g. --connect 10.0.0.5:41234",
                "consume", "--connect", "localhost", "--producer-id", "p", "--partitions", id, "--subpartitions", "1");
        assertUsage("--connect 'h:70000' is not HOST:PORT with a port from 1 to 65535, e.g. --connect 10.0.0.5:41234",
                "consume", "--connect", "h:70000", "--producer-id", "p", "--partitions", id, "--subpartitions", "1");
        assertUsage("Invalid value for option '--partitions' (HEX,...): 'xyz' is not a partition id (32 hex digits, as serve"
                + " prints them)",
                "consume", "--connect", "h:1", "--producer-id", "p", "--partitions", id + ",xyz", "--subpartitions", "1");
        assertUsage("--producer-id must not be empty",
                "consume", "--connect", "h:1", "--producer-id", " ", "--partitions", id, "--subpartitions", "1");
        assertUsage("--subpartitions 0 is out of range; use 1 to 4096",
                "consume", "--connect", "h:1", "--producer-id", "p", "--partitions", id, "--subpartitions", "0");
    }

    @Test
    void reportInAMissingDirectory_isAUsageError_beforeTheRun(@TempDir Path directory) {
        UsageException wrong = assertThrows(UsageException.class,
                () -> BenchCli.parse(new String[] {"--report", directory.resolve("no/such/dir/run.html").toString()}));
        assertTrue(wrong.getMessage().startsWith("--report "), wrong.getMessage());
        assertTrue(wrong.getMessage().contains("does not exist"), wrong.getMessage());
    }

    private static void assertUsage(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> BenchCli.parse(args));
        assertEquals(expected, e.getMessage());
    }

    private static void assertUsageStartsWith(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> BenchCli.parse(args));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
