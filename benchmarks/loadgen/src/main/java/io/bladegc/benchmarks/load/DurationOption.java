package io.bladegc.benchmarks.load;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value of a duration option of the benchmark tools ({@code --duration}, {@code --warmup}, {@code --timeout}), as
 * {@link OpenLoopLoad#parseDuration} reads it: {@code 30s}, {@code 500ms}, {@code 2m}, a bare number of seconds, or
 * ISO-8601. Stateless.
 */
public final class DurationOption implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return OpenLoopLoad.parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "' is not a duration such as 30s, 500ms or 2m");
        }
    }
}
