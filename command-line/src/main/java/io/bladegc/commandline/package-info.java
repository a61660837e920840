/**
 * How Blade's programs read their command lines: the coordinator ({@code java -jar blade-coordinator.jar}) and the
 * benchmark tools. Each program declares its options with picocli's annotations on a {@link
 * io.bladegc.commandline.ToolCommand}, which turns them into the plain options value the program runs with;
 * {@link io.bladegc.commandline.ToolCommandLine} gives every program the same {@code --help} layout and the same
 * usage errors (one line per problem naming the option and value, then a hint to run {@code --help}, exit status 2).
 * The agent's {@code key=value} options do not use this: the agent stays free of dependencies.
 */
package io.bladegc.commandline;
