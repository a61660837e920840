package io.bladegc.commandline;

import picocli.CommandLine;

/**
 * One program's command line: an object whose fields carry picocli's {@code @Option} and {@code @Parameters}
 * annotations (with {@code @Command} on its class for the name and description), and the options value it makes of
 * them. Picocli checks each value's form (a number, a duration); {@link #options()} checks ranges and how the options
 * fit together. A new instance per parse: picocli writes into its fields.
 *
 * @param <T> the options the program runs with: a plain value that does not depend on picocli
 */
public interface ToolCommand<T> {

    /**
     * Called once picocli has filled the fields without finding a problem.
     *
     * @return the options
     * @throws UsageException naming every option whose value is out of range or does not fit the others
     */
    T options();

    /**
     * Adjusts the parser before it reads the arguments, for what annotations cannot say (a default-value provider,
     * stopping at the first positional argument). Does nothing unless overridden.
     *
     * @param commandLine the parser, already in {@link ToolCommandLine}'s layout
     */
    default void configure(CommandLine commandLine) {
    }
}
