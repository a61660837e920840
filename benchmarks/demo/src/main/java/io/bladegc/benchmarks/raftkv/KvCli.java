package io.bladegc.benchmarks.raftkv;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

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

    /**
     * Runs one command.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    private static int run(String[] args) {
        String peers = null;
        String group = null;
        int i = 0;
        while (i + 1 < args.length && args[i].startsWith("--")) {
            switch (args[i]) {
                case "--peers" -> peers = args[i + 1];
                case "--group" -> group = args[i + 1];
                default -> {
                    return usage("unknown argument " + args[i]);
                }
            }
            i += 2;
        }
        if (peers == null) {
            return usage("--peers is required");
        }
        List<String> command = Arrays.asList(args).subList(i, args.length);
        try (KvClient client = KvClient.connect(KvGroup.parse(peers, group))) {
            System.out.println(execute(client, command));
            return 0;
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (IOException e) {
            System.err.println("kv: " + e.getMessage());
            return 1;
        }
    }

    private static String execute(KvClient client, List<String> command) throws IOException {
        String verb = command.isEmpty() ? "" : command.get(0);
        int arity = command.size() - 1;
        switch (verb) {
            case "put" -> {
                requireArity(verb, arity, 2, "KEY VALUE");
                return show(client.put(command.get(1), command.get(2)));
            }
            case "get" -> {
                requireArity(verb, arity, 1, "KEY");
                return show(client.get(command.get(1)));
            }
            case "delete" -> {
                requireArity(verb, arity, 1, "KEY");
                return show(client.delete(command.get(1)));
            }
            case "size" -> {
                requireArity(verb, arity, 0, "");
                return Integer.toString(client.size());
            }
            case "preload" -> {
                if (arity < 1 || arity > 2) {
                    throw new IllegalArgumentException("preload takes N [VALUE_BYTES]");
                }
                int valueBytes = arity == 2 ? number("VALUE_BYTES", command.get(2)) : DEFAULT_PRELOAD_VALUE_BYTES;
                return Integer.toString(client.preload(number("N", command.get(1)), valueBytes));
            }
            default -> throw new IllegalArgumentException(
                "command '" + verb + "' is not one of put, get, delete, size, preload");
        }
    }

    private static void requireArity(String verb, int arity, int expected, String shape) {
        if (arity != expected) {
            throw new IllegalArgumentException(verb + " takes " + (shape.isEmpty() ? "no arguments" : shape));
        }
    }

    private static int number(String what, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number");
        }
    }

    private static String show(String value) {
        return value == null ? "(absent)" : value;
    }

    private static int usage(String problem) {
        System.err.println("kv: " + problem);
        System.err.println("usage: KvCli --peers n1=host:port,... [--group UUID] "
            + "put KEY VALUE | get KEY | delete KEY | size | preload N [VALUE_BYTES]");
        return 2;
    }
}
