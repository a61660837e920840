package io.bladegc.benchmarks.load;

import io.bladegc.api.DurationText;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value of a duration option of the benchmark tools ({@code --duration}, {@code --warmup}, {@code --timeout}), in
 * the project's one grammar ({@link DurationText}: {@code 30s}, {@code 500ms}, {@code 2m} or ISO-8601; a unit is
 * required). Stateless.
 */
public final class DurationOption implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return DurationText.parse(value.trim());
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "': " + e.getMessage());
        }
    }
}
