package io.sluice.bench.command;

import io.sluice.api.ResultPartitionId;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Flags;
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.options.Workload;
import io.sluice.tests.support.RecordSizes;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice-bench consume}: reads what a serve process offers. Filled by picocli; main thread. */
@Command(name = "consume", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        synopsisHeading = "%nUsage: ", customSynopsis = "sluice-bench consume [OPTIONS]",
        optionListHeading = "%nOptions:%n",
        header = "Read the partitions of a 'serve' process, from this or another machine.",
        footer = {HelpText.UNITS, HelpText.ACROSS_MACHINES})
final class ConsumeCommand extends BenchCommand {

    private static final int MAX_PORT = 65_535;

    @Mixin
    ReceiverOptions receiving;

    @Option(names = Flags.CONNECT, order = 25, paramLabel = "HOST:PORT", required = true,
            description = "data address of the serve process (serve prints it)")
    String connect;

    @Option(names = Flags.PRODUCER_ID, order = 26, paramLabel = "ID", required = true,
            description = "resource id of the serve process's environment (serve prints it)")
    String producerId;

    @Option(names = Flags.PARTITIONS, order = 27, paramLabel = "HEX,...", required = true, split = ",", hideParamSyntax = true,
            converter = PartitionIdConverter.class,
            description = "ids of the partitions to read, 32 hex digits each (serve prints them)")
    List<ResultPartitionId> partitions;

    @Option(names = Flags.SUBPARTITIONS, order = 28, paramLabel = "N", required = true,
            description = "subpartitions of each partition; one consumer task reads each (serve prints it)")
    int subpartitions;

    @Override
    io.sluice.bench.options.Command command() {
        return io.sluice.bench.options.Command.CONSUME;
    }

    @Override
    public BenchOptions options() throws UsageException {
        var config = checked(receiving.addTo(common.librarySettings()));
        ServeTicket ticket = ticket();
        Workload workload = common.workload(RecordSizes.parse(ProducerOptions.DEFAULT_RECORD_SIZE),
                ProducerOptions.DEFAULT_SEED, null);
        return options(ticket.partitions().size(), ticket.subpartitions(), 1, workload, config, null, ticket, false, 0, 0);
    }

    private ServeTicket ticket() throws UsageException {
        String address = connect.trim();
        int colon = address.lastIndexOf(':');
        String host = colon > 0 ? address.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // [::1]:port
        }
        int port;
        try {
            port = colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : -1;
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > MAX_PORT) {
            throw new UsageException(Flags.CONNECT + " '" + address + "' is not HOST:PORT with a port from 1 to "
                    + MAX_PORT + ", e.g. --connect 10.0.0.5:41234");
        }
        if (producerId.isBlank()) {
            throw new UsageException(Flags.PRODUCER_ID + " must not be empty");
        }
        if (partitions.size() > ProducerOptions.MAX_TASKS) {
            throw new UsageException(Flags.PARTITIONS + " lists " + partitions.size() + " partitions, more than "
                    + ProducerOptions.MAX_TASKS);
        }
        int checkedSubpartitions = Counts.check(Flags.SUBPARTITIONS, subpartitions, 1, ProducerOptions.MAX_TASKS);
        return new ServeTicket(host, port, producerId.trim(), List.copyOf(partitions), checkedSubpartitions);
    }
}
