package io.sluice.bench.command;

import io.sluice.api.ShuffleConfigValidator;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.ProgressMode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The sluice-bench command line, parsed by picocli: which command, with which options. picocli's
 * errors become a {@link UsageException} whose message names the option, the value and what is
 * wrong, with the closest known option or command for a typo. Stateless; any thread (each call
 * builds its own picocli objects).
 */
public final class BenchCli {

    private BenchCli() {
    }

    /** @return a fresh parser for the whole command line */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new SluiceBench());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setResourceBundle(new LibraryDefaults());
        cli.setExpandAtFiles(false); // a value such as "@run.html" is a value, not a file of arguments
        return cli;
    }

    /**
     * @param args the command line, without the program and without {@code jmh}
     * @return the parsed command that runs: its {@code getCommand()} is a {@link BenchCommand} or a
     *     {@link ChaosCommand} or a {@link LatencyCommand}; {@code isUsageHelpRequested()} says whether to print its help instead
     * @throws UsageException naming the first problem
     */
    public static CommandLine select(String[] args) throws UsageException {
        CommandLine cli = commandLine();
        ParseResult result;
        try {
            result = cli.parseArgs(args);
        } catch (ParameterException e) {
            throw new UsageException(message(e));
        }
        if (result.hasSubcommand()) {
            if (!result.matchedOptions().isEmpty()) {
                throw new UsageException(result.matchedOptions().get(0).longestName() + " comes before the command '"
                        + result.subcommand().commandSpec().name() + "'; options follow the command word");
            }
            return result.subcommand().commandSpec().commandLine();
        }
        return cli;
    }

    /**
     * @param args the command line of {@code run}, {@code serve} or {@code consume}
     * @return the checked options; only {@link BenchOptions#command()} and {@code help} when help was asked for
     * @throws UsageException naming the first problem
     */
    static BenchOptions parse(String[] args) throws UsageException {
        CommandLine chosen = select(args);
        if (!(chosen.getCommand() instanceof BenchCommand command)) {
            throw new IllegalArgumentException("not a command that moves records: " + String.join(" ", args));
        }
        if (chosen.isUsageHelpRequested()) {
            return new BenchOptions(command.command(), true, 0, 0, 0, null, null, null, null, ProgressMode.OFF, false,
                    null, null, false, 0, 0, null);
        }
        return command.options();
    }

    /**
     * @param e what picocli found wrong
     * @return the message for the user: picocli's, plus the suggestion it has for a typo, the command an
     *     option belongs to, or where the values for a consume come from
     */
    static String message(ParameterException e) {
        CommandSpec spec = e.getCommandLine().getCommandSpec();
        if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String argument = unmatched.getUnmatched().get(0);
            String name = argument.startsWith("--") && argument.contains("=") ? argument.substring(0, argument.indexOf('='))
                    : argument;
            String owner = commandTaking(name, spec);
            if (owner != null) {
                return name + " is not an option of '" + commandWord(spec) + "' but of '" + owner + "'; see "
                        + commandWord(spec) + " --help";
            }
            // After "--" even a known option is an argument.
            boolean option = name.startsWith("-") && spec.findOption(name) == null;
            if (option) {
                return "unknown option " + name + "; did you mean " + closestOption(name, spec) + "?";
            }
            List<String> suggestions = new ArrayList<>(unmatched.getSuggestions());
            suggestions.remove(name);
            String prefix = "unexpected argument ";
            if (!suggestions.isEmpty()) {
                return prefix + "'" + name + "'; did you mean " + String.join(" or ", suggestions) + "?";
            }
            return prefix + "'" + name + "'; " + (spec.subcommands().isEmpty() ? "" : "the commands are "
                    + String.join(", ", spec.subcommands().keySet()) + " and jmh; ") + "see " + commandWord(spec)
                    + " --help";
        }
        if (e instanceof MissingParameterException && spec.name().equals(Command.CONSUME.word())) {
            return e.getMessage() + "; pass the line that 'sluice-bench serve' prints";
        }
        return e.getMessage().replace("option option", "option"); // picocli 4.7 doubles the word for a map option
    }

    /** @return the option of {@code spec} fewest edits away from {@code typo}, as the library suggests a key */
    private static String closestOption(String typo, CommandSpec spec) {
        List<String> names = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            names.add(option.longestName());
        }
        return ShuffleConfigValidator.closestName(typo, names);
    }

    /** @return "run" for the top command, else the command's name */
    private static String commandWord(CommandSpec spec) {
        return spec.parent() == null ? Command.RUN.word() : spec.name();
    }

    /** @return the other command that takes the option {@code argument}, or null */
    private static String commandTaking(String name, CommandSpec spec) {
        if (!name.startsWith("--") || spec.findOption(name) != null) {
            return null;
        }
        CommandSpec root = spec.root();
        for (CommandLine sub : root.subcommands().values()) {
            if (sub.getCommandSpec() != spec && sub.getCommandSpec().findOption(name) != null) {
                return sub.getCommandSpec().name();
            }
        }
        return null;
    }
}
