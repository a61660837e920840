package io.bladegc.commandline;

import java.util.List;

/**
 * A command line a program cannot run with: one line per problem, each naming the option (and value) at fault. The
 * message is the problems joined by {@code "; "}. Immutable.
 */
public final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Not serialized with the exception: the message carries the same text. */
    private final transient List<String> problems;

    /**
     * @param problems one line each, at least one
     * @throws IllegalArgumentException when {@code problems} is empty
     */
    public UsageException(List<String> problems) {
        super(String.join("; ", problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a usage error needs a problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** @param problem one line naming the option at fault */
    public UsageException(String problem) {
        this(List.of(problem));
    }

    /** @return one line per problem, in the order found */
    public List<String> problems() {
        return problems;
    }
}
