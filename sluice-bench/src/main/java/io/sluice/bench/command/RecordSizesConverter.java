package io.sluice.bench.command;

import io.sluice.tests.support.RecordSizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code --record-size} ({@code SIZE}, {@code MIN..MAX}, {@code SIZE:WEIGHT,...} or {@code mixed}). Stateless; any thread. */
final class RecordSizesConverter implements ITypeConverter<RecordSizes> {

    @Override
    public RecordSizes convert(String text) {
        try {
            return RecordSizes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
