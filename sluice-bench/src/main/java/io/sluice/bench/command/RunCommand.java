package io.sluice.bench.command;

import picocli.CommandLine.Command;

/** {@code sluice-bench run}: producers and consumers in this process, as without a command word. Main thread. */
@Command(name = "run", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        synopsisHeading = "%nUsage: ", customSynopsis = "sluice-bench [run] [OPTIONS]",
        optionListHeading = "%nOptions:%n",
        header = "Producers and consumers in this process, environments connected over loopback (the default).",
        footer = HelpText.UNITS)
final class RunCommand extends InProcessOptions {
}
