package io.bladegc.testkit;

/** A child JVM's main for the tests: prints a property and a line as the agent would, then exits with status 3. */
public final class ExitingMain {
    private ExitingMain() {
    }

    public static void main(String[] args) {
        System.out.println("property " + System.getProperty("testkit.value"));
        System.err.println(ChildJvm.AGENT_PREFIX + "not really the agent");
        System.exit(3);
    }
}
