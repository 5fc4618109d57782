package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleConfigValidator;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.Flags;
import io.sluice.bench.options.LibraryFlags;
import io.sluice.bench.options.ServeTicket;
import io.sluice.bench.options.Workload;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;

/**
 * A command that moves records ({@code run}, {@code serve}, {@code consume}): picocli fills its
 * options, {@link #options()} checks them together and turns them into {@link BenchOptions}.
 * One instance per parse; used by the main thread.
 */
public abstract class BenchCommand {

    @Mixin
    CommonOptions common;

    /** @return which command this is */
    abstract Command command();

    /**
     * @return the checked options
     * @throws UsageException naming the first problem, the option and how to write it instead
     */
    public abstract BenchOptions options() throws UsageException;

    /**
     * Checks library settings with the library's own {@link ShuffleConfigValidator} and reports
     * each problem under the option that sets it.
     *
     * @param settings what the options and --conf set
     * @return the settings, checked
     * @throws UsageException listing every problem
     */
    final ShuffleConfig checked(ShuffleConfig settings) throws UsageException {
        List<String> problems = ShuffleConfigValidator.problems(settings);
        if (!problems.isEmpty()) {
            List<String> lines = new ArrayList<>();
            for (String problem : problems) {
                lines.add(LibraryFlags.inCommandLineTerms(problem));
            }
            throw new UsageException(String.join("\n", lines));
        }
        if (command() != Command.RUN && "local".equals(common.transport)) {
            throw new UsageException(Flags.TRANSPORT + " local connects environments inside one process only;"
                    + " '" + command().word() + "' talks to another process: use auto, nio or epoll");
        }
        return settings;
    }

    /** @return options for the runs, from the parts each command checked */
    final BenchOptions options(int producers, int consumers, int environments, Workload workload, ShuffleConfig config,
                               String bindAddress, ServeTicket ticket, boolean blocking, long warmUpBytes,
                               int warmUpRounds)
            throws UsageException {
        return new BenchOptions(command(), false, producers, consumers, environments, workload, config,
                common.timeout(workload), common.sampleInterval(), common.progress, common.json, bindAddress, ticket,
                blocking, warmUpBytes, warmUpRounds, common.report());
    }
}
