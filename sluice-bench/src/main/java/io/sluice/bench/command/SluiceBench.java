package io.sluice.bench.command;

import picocli.CommandLine.Command;

/**
 * The top command of sluice-bench: {@code run}'s options when no command word is given, and the
 * commands. Filled by picocli; main thread.
 */
@Command(name = "sluice-bench", sortOptions = false, usageHelpWidth = HelpText.WIDTH,
        header = HelpText.INTRO,
        synopsisHeading = "Usage:%n",
        customSynopsis = {
            "  sluice-bench [run] [OPTIONS]",
            "  sluice-bench serve [OPTIONS]",
            "  sluice-bench consume [OPTIONS]",
            "  sluice-bench chaos [--seeds N] [--start S] | --seed S",
            "  sluice-bench latency [--warmup S] [--measure S] [--transport auto|nio|epoll]",
            "  sluice-bench jmh [JMH OPTIONS]"},
        commandListHeading = "%nCommands ('sluice-bench COMMAND --help' lists the options of each):%n",
        optionListHeading = "%nOptions of 'run', the default command:%n",
        subcommands = {RunCommand.class, ServeCommand.class, ConsumeCommand.class, ChaosCommand.class,
            LatencyCommand.class},
        footer = {HelpText.JMH, HelpText.UNITS})
public final class SluiceBench extends InProcessOptions {
}
