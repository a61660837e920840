package io.bladegc.benchmarks.raftkv;

import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import java.io.IOException;
import java.util.List;
import org.apache.ratis.protocol.RaftGroup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Command-line client of the replicated key-value store.
 *
 * <pre>
 * KvCli --peers n1=host:port,... [--group UUID] put KEY VALUE | get KEY | delete KEY | size
 *                                               | preload N [VALUE_BYTES]
 * </pre>
 *
 * Prints the previous value (put, delete), the value (get), or the key count (size, preload); {@code (absent)} for
 * no value. {@code preload} writes {@code key-0 .. key-(N-1)} with values of {@value #DEFAULT_PRELOAD_VALUE_BYTES}
 * bytes unless given. Exit status: 0 done, 1 the store did not answer or refused, 2 bad arguments.
 */
public final class KvCli {
    /** Value length of {@code preload} when not given. */
    public static final int DEFAULT_PRELOAD_VALUE_BYTES = 100;

    private KvCli() {
    }

    /** The command line: the group, then the command. */
    @Command(name = "KvCli", customSynopsis = {"KvCli --peers n1=host:port,... [--group UUID] COMMAND",
        "  COMMAND: put KEY VALUE | get KEY | delete KEY | size | preload N [VALUE_BYTES]"},
        description = "Runs one command against the replicated key-value store. Exit status: 0 done, 1 the store"
            + " did not answer or refused, 2 bad arguments.")
    static final class Request implements ToolCommand<Request> {
        @Option(names = "--peers", paramLabel = "n1=host:port,...", required = true, description = "the store's peers")
        String peers;

        @Option(names = "--group", paramLabel = "UUID", description = "the group's id (default the store's own)")
        String group;

        @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "put KEY VALUE, get KEY, delete KEY, size,"
            + " or preload N [VALUE_BYTES]")
        List<String> command;

        RaftGroup raftGroup;

        @Override
        public void configure(CommandLine commandLine) {
            commandLine.setStopAtPositional(true); // a key or value may start with dashes
        }

        @Override
        public Request options() {
            try {
                raftGroup = KvGroup.parse(peers, group);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            String verb = command.get(0);
            int arity = command.size() - 1;
            switch (verb) {
                case "put" -> requireArity(verb, arity, 2, "KEY VALUE");
                case "get", "delete" -> requireArity(verb, arity, 1, "KEY");
                case "size" -> requireArity(verb, arity, 0, "");
                case "preload" -> {
                    if (arity < 1 || arity > 2) {
                        throw new UsageException("preload takes N [VALUE_BYTES]");
                    }
                    number("N", command.get(1));
                    if (arity == 2) {
                        number("VALUE_BYTES", command.get(2));
                    }
                }
                default -> throw new UsageException(
                    "command '" + verb + "' is not one of put, get, delete, size, preload");
            }
            return this;
        }
    }

    /**
     * Runs one command.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        System.exit(run(ToolCommandLine.parseOrExit(new Request(), args)));
    }

    private static int run(Request request) {
        try (KvClient client = KvClient.connect(request.raftGroup)) {
            System.out.println(execute(client, request.command));
            return 0;
        } catch (IOException e) {
            System.err.println("kv: " + e.getMessage());
            return 1;
        }
    }

    /** Runs a command {@link Request#options()} checked. */
    private static String execute(KvClient client, List<String> command) throws IOException {
        return switch (command.get(0)) {
            case "put" -> show(client.put(command.get(1), command.get(2)));
            case "get" -> show(client.get(command.get(1)));
            case "delete" -> show(client.delete(command.get(1)));
            case "size" -> Integer.toString(client.size());
            case "preload" -> Integer.toString(client.preload(number("N", command.get(1)),
                command.size() == 3 ? number("VALUE_BYTES", command.get(2)) : DEFAULT_PRELOAD_VALUE_BYTES));
            default -> throw new IllegalStateException("unchecked command " + command);
        };
    }

    private static void requireArity(String verb, int arity, int expected, String shape) {
        if (arity != expected) {
            throw new UsageException(verb + " takes " + (shape.isEmpty() ? "no arguments" : shape));
        }
    }

    private static int number(String what, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new UsageException(what + " '" + text + "' is not a number");
        }
    }

    private static String show(String value) {
        return value == null ? "(absent)" : value;
    }
}
