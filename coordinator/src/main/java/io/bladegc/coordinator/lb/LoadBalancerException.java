package io.bladegc.coordinator.lb;

/**
 * A load balancer refused a change or could not be reached. Unchecked, so that callers on the grant path decide
 * where to handle it; the message always names the node, the command and the load balancer's answer (or why there
 * was none).
 */
public class LoadBalancerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String node;
    private final String command;
    private final String answer;

    public LoadBalancerException(String message, String node, String command, String answer, Throwable cause) {
        super(message, cause);
        this.node = node;
        this.command = command;
        this.answer = answer;
    }

    /** The node the failed change was for. */
    public String node() {
        return node;
    }

    /** The command sent to the load balancer, or {@code null} when none was sent (an unmapped node). */
    public String command() {
        return command;
    }

    /** The load balancer's answer, stripped of surrounding white space, or {@code null} when none was received. */
    public String answer() {
        return answer;
    }

    /** @return a load balancer's answer on one line, for a message: line breaks become {@code " | "} */
    static String oneLine(String answer) {
        return answer.replace("\r", "").replace("\n", " | ");
    }
}
