package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Flags;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice-bench serve}: the producers, for a consume process. Filled by picocli; main thread. */
@Command(name = "serve", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        synopsisHeading = "%nUsage: ", customSynopsis = "sluice-bench serve [OPTIONS]",
        optionListHeading = "%nOptions:%n",
        header = "Run the producers and print the line that 'consume' needs, then wait until it has read everything.",
        footer = {HelpText.UNITS, HelpText.ACROSS_MACHINES})
final class ServeCommand extends BenchCommand {

    @Mixin
    ProducerOptions producing;

    @Option(names = Flags.BIND, order = 23, paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "address the data port listens on (0.0.0.0 for every interface) [default: ${DEFAULT-VALUE}]")
    String bind;

    @Option(names = Flags.PORT, order = 24, paramLabel = "N",
            description = "data port (0 = any free port) [default: ${bundle:library-default.port}]")
    Integer port;

    @Override
    io.sluice.bench.options.Command command() {
        return io.sluice.bench.options.Command.SERVE;
    }

    @Override
    public BenchOptions options() throws UsageException {
        ShuffleConfig settings = producing.addTo(common.librarySettings());
        if (port != null) {
            settings = settings.with(ShuffleOptions.NETTY_PORT, port);
        }
        ShuffleConfig config = checked(settings);
        int producers = producing.producers();
        int consumers = producing.consumers();
        return options(producers, consumers, 1, producing.workload(common), config, bind, null, false, 0, 0);
    }
}
