package io.sluice.bench.command;

import io.sluice.api.ResultPartitionId;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads one id of {@code consume --partitions}, as serve prints it. Stateless; any thread. */
final class PartitionIdConverter implements ITypeConverter<ResultPartitionId> {

    @Override
    public ResultPartitionId convert(String text) {
        try {
            return ResultPartitionId.fromString(text.trim());
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + text.trim() + "' is not a partition id (32 hex digits, as serve prints them)");
        }
    }
}
