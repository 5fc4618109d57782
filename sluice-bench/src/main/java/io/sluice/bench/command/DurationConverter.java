package io.sluice.bench.command;

import io.sluice.api.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a time option ({@code 500us}, {@code 30s}, {@code 1h}) with the library's own parser,
 * so the command line takes exactly what a configuration file takes. Stateless; any thread.
 */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            // The library's message names the value, why it is wrong and the accepted forms; picocli adds the option.
            throw new TypeConversionException(e.getMessage());
        }
    }
}
