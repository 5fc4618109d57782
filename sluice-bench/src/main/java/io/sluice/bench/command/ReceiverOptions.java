package io.sluice.bench.command;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.bench.options.Flags;
import picocli.CommandLine.Option;

/**
 * The buffer options of the commands that run consumers over the network ({@code run},
 * {@code consume}). A picocli mixin; filled by the parser, then read by the main thread.
 */
final class ReceiverOptions {

    @Option(names = Flags.BUFFERS_PER_CHANNEL, order = 12, paramLabel = "N",
            description = "exclusive buffers of each remote input channel [default: ${bundle:library-default.buffers-per-channel}]")
    Integer buffersPerChannel;

    @Option(names = Flags.FLOATING_BUFFERS, order = 13, paramLabel = "N",
            description = "floating buffers of each input gate [default: ${bundle:library-default.floating-buffers}]")
    Integer floatingBuffers;

    /** @return the library settings with these buffers, when given (the library checks their ranges) */
    ShuffleConfig addTo(ShuffleConfig config) {
        ShuffleConfig result = config;
        if (buffersPerChannel != null) {
            result = result.with(ShuffleOptions.BUFFERS_PER_CHANNEL, buffersPerChannel);
        }
        if (floatingBuffers != null) {
            result = result.with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, floatingBuffers);
        }
        return result;
    }
}
