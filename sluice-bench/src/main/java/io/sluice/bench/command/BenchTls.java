package io.sluice.bench.command;

import io.sluice.api.ConfigOption;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.BenchOptions;
import io.sluice.bench.options.Command;
import io.sluice.bench.options.Flags;
import io.sluice.tests.support.ThrowawayPki;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --ssl} without stores: run and serve make a throw-away CA and a node certificate (keytool, in a temporary
 * directory) and use them on both ends; serve prints the {@code --conf} flags that let consume use the same ones.
 * consume cannot make its own: it must trust serve's CA. Called once by {@code Main} on its thread.
 */
public final class BenchTls {

    private BenchTls() {
    }

    /**
     * @param options the parsed command line
     * @param err     where the note about the generated stores goes
     * @return the options, with stores when TLS is on and none were given
     * @throws UsageException consume with {@code --ssl} but without stores
     */
    public static BenchOptions withStores(BenchOptions options, PrintStream err) throws UsageException {
        ShuffleConfig config = options.shuffleConfig();
        if (!config.get(ShuffleOptions.SSL_ENABLED) || !config.get(ShuffleOptions.SSL_KEYSTORE).isEmpty()) {
            return options;
        }
        if (options.command() == Command.CONSUME) {
            throw new UsageException(Flags.SSL + " with consume needs the stores serve uses: pass the "
                    + Flags.CONF + " " + ShuffleOptions.SSL_KEYSTORE.key() + "=... flags serve printed");
        }
        ThrowawayPki pki;
        try {
            Path directory = Files.createTempDirectory("sluice-bench-tls");
            pki = ThrowawayPki.create(directory, "sluice-bench", "PKCS12");
        } catch (IOException e) {
            throw new UsageException(Flags.SSL + ": cannot make a throw-away CA with keytool: "
                    + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageException(Flags.SSL + ": interrupted while making certificates");
        }
        ShuffleConfig withStores = pki.configure(config, config.get(ShuffleOptions.SSL_PROVIDER));
        err.println("sluice-bench: TLS with a throw-away CA in " + pki.keystore().getParent()
                + (options.command() == Command.SERVE ? "; consume needs: " + consumeFlags(withStores) : ""));
        return new BenchOptions(options.command(), options.help(), options.producers(), options.consumers(),
                options.environments(), options.workload(), withStores, options.timeout(), options.sampleInterval(),
                options.progress(), options.json(), options.bindAddress(), options.ticket(), options.blocking(),
                options.warmUpBytes(), options.warmUpRounds(),
                options.report());
    }

    private static String consumeFlags(ShuffleConfig config) {
        StringBuilder flags = new StringBuilder(Flags.SSL + " " + config.get(ShuffleOptions.SSL_PROVIDER));
        for (ConfigOption<String> option : List.of(ShuffleOptions.SSL_KEYSTORE, ShuffleOptions.SSL_KEYSTORE_PASSWORD,
                ShuffleOptions.SSL_TRUSTSTORE, ShuffleOptions.SSL_TRUSTSTORE_PASSWORD)) {
            flags.append(' ').append(Flags.CONF).append(' ').append(option.key()).append('=')
                    .append(config.toMap().get(option.key()));
        }
        return flags.toString();
    }
}
