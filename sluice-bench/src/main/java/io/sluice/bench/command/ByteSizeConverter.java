package io.sluice.bench.command;

import io.sluice.api.ByteSizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a size option ({@code 32k}, {@code 64m}, {@code 4g}) with the library's own parser, so
 * the command line takes exactly what a configuration file takes. Stateless; any thread.
 */
final class ByteSizeConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String text) {
        try {
            return ByteSizes.parse(text);
        } catch (IllegalArgumentException e) {
            // The library's message names the value, why it is wrong and the accepted forms; picocli adds the option.
            throw new TypeConversionException(e.getMessage());
        }
    }
}
