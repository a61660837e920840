package io.bladegc.agent;

import io.bladegc.agent.coordination.CoordinatedMode;
import io.bladegc.agent.instrumentation.Instrumenting;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.BladeOptionsParser;
import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.lang.instrument.Instrumentation;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * The {@code -javaagent} entry point: reads the options (agent arguments &gt; {@code blade.*} system properties &gt;
 * {@code BLADE_*} environment &gt; defaults) and starts the JVM's Blade node. It opens no port. Without a
 * {@code coordinator} it starts no thread of its own; with one it starts the coordinated mode
 * ({@link CoordinatedMode}: threads {@code blade-coordination} and {@code blade-heartbeat}, and a shutdown hook that
 * leaves the cluster), which does no I/O before {@code main}. With {@code instrument=servlet} or
 * {@code explicitGc=coordinate|ignore} it instruments classes as they load ({@link Instrumenting}). It never stops the
 * application from starting, unless {@code strict=true} and an option is bad: then, at start-up
 * ({@code -javaagent}), it prints one line and ends the JVM with exit status {@value #STRICT_EXIT_STATUS} before
 * {@code main}; attached to a JVM already running ({@code agentmain}) it prints the line and leaves the application
 * alone. A coordinated mode or an instrumentation that cannot start leaves the node running without it. What it
 * prints about bad options is bounded ({@link OptionMessages}: a handful of lines, each cut and with control
 * characters escaped).
 */
public final class BladeAgent {
    /** Set once the agent has been attached; a second attach prints one line and does nothing. */
    static final String ATTACHED_PROPERTY = "io.bladegc.agent.attached";
    static final String PREFIX = "[blade] ";
    static final String RUNS_ON = "; Blade is disabled, the application runs on";
    /** The exit status of a JVM that {@code strict=true} stopped at start-up. */
    static final int STRICT_EXIT_STATUS = 2;

    /** The options are invalid and {@code strict=true}: the message is the one line to print. Stackless. */
    static final class StrictFailure extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        StrictFailure(String line) {
            super(line);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** Starts the coordinated mode on a node; tests pass their own. */
    @FunctionalInterface
    interface CoordinatedStarter {
        CoordinatedMode start(BladeNode node, BladeOptions options, System.Logger log);
    }

    /** Instruments classes for a node; tests pass their own. */
    @FunctionalInterface
    interface Instrumenter {
        /**
         * @return what was instrumented, for the start-up line (empty for nothing)
         * @throws Exception when the instrumentation cannot be installed
         */
        String install(BladeNode node, BladeOptions options) throws Exception;
    }

    /** The agent's: a heartbeat every second, leave at JVM exit. */
    static final CoordinatedStarter COORDINATED = CoordinatedMode::start;

    private BladeAgent() {
    }

    /**
     * Called by the JVM for {@code -javaagent:blade-agent.jar=key=value,...} before {@code main}. With
     * {@code strict=true} and a bad option it prints one line and ends the JVM (exit status
     * {@value #STRICT_EXIT_STATUS}).
     */
    public static void premain(String agentArgs, Instrumentation inst) {
        try {
            init(agentArgs, inst);
        } catch (StrictFailure e) {
            System.err.println(e.getMessage() + "; the JVM exits");
            System.exit(STRICT_EXIT_STATUS);
        }
    }

    /**
     * Called by the JVM when the agent is attached to a running JVM. With {@code strict=true} and a bad option it
     * prints one line and does nothing: the application, already running, runs on.
     */
    public static void agentmain(String agentArgs, Instrumentation inst) {
        try {
            init(agentArgs, inst);
        } catch (StrictFailure e) {
            System.err.println(e.getMessage() + "; the agent does not start, the running application runs on");
        }
    }

    private static void init(String agentArgs, Instrumentation inst) {
        System.Logger log = System.getLogger("io.bladegc.agent");
        start(agentArgs, System.getProperties(), System.getenv(), System.err, log, Blade::startNode, COORDINATED,
            (node, options) -> Instrumenting.install(inst, node, options, log));
    }

    /**
     * The whole agent, with its surroundings passed in.
     *
     * @return the node started, or {@code null} when Blade stays off
     * @throws StrictFailure only when an option is bad and {@code strict=true}; nothing was printed yet
     */
    static BladeNode start(String agentArgs, Properties props, Map<String, String> env, PrintStream err,
                           System.Logger log, Function<BladeOptions, BladeNode> starter) {
        return start(agentArgs, props, env, err, log, starter, COORDINATED, (node, options) -> "");
    }

    /**
     * The whole agent, with its surroundings passed in, the coordinated mode's start and the instrumentation too.
     *
     * @return the node started, or {@code null} when Blade stays off
     * @throws StrictFailure only when an option is bad and {@code strict=true}; nothing was printed yet
     */
    static BladeNode start(String agentArgs, Properties props, Map<String, String> env, PrintStream err,
                           System.Logger log, Function<BladeOptions, BladeNode> starter,
                           CoordinatedStarter coordinated, Instrumenter instrumenter) {
        BladeOptionsParser.Result result;
        try {
            if (props.putIfAbsent(ATTACHED_PROPERTY, "true") != null) {
                err.println(PREFIX + "the Blade agent is already attached to this JVM (" + ATTACHED_PROPERTY
                    + "=true); ignoring this one");
                return null;
            }
            result = BladeOptionsParser.parse(agentArgs, props, env);
        } catch (Throwable t) {
            failed(err, t);
            return null;
        }
        if (!result.ok()) {
            if (result.options().strict()) {
                throw new StrictFailure(OptionMessages.strictLine(result.errors()));
            }
            OptionMessages.lines(result.errors(), RUNS_ON).forEach(err::println);
            off(props, "its options were refused: " + OptionMessages.bounded(result.errors().get(0))
                + (result.errors().size() > 1 ? " (and " + (result.errors().size() - 1) + " more)" : ""));
            return null;
        }
        try {
            if (!result.options().enabled()) {
                log.log(Level.INFO, "Blade: enabled=false; the agent does nothing");
                off(props, "enabled=false");
                return null;
            }
            BladeNode node = starter.apply(result.options());
            String cluster = result.options().coordinated()
                ? startCoordinated(node, result.options(), err, log, coordinated) : "";
            String instrumented = instrument(node, result.options(), err, instrumenter);
            log.log(Level.INFO, node.summary() + cluster + instrumented);
            return node;
        } catch (Throwable t) {
            failed(err, t);
            off(props, "it could not start");
            return null;
        }
    }

    /** Says to Blade filters in this JVM that Blade stays off, and why ({@link Blade#AGENT_OFF_PROPERTY}). */
    private static void off(Properties props, String why) {
        props.setProperty(Blade.AGENT_OFF_PROPERTY, why);
    }

    /** @return the end of the start-up line; a failure is one line on {@code err} and leaves the node single-node */
    private static String startCoordinated(BladeNode node, BladeOptions options, PrintStream err, System.Logger log,
                                           CoordinatedStarter coordinated) {
        try {
            return ", " + coordinated.start(node, options, log).describe();
        } catch (Throwable t) {
            try {
                err.println(PREFIX + "coordinated mode could not start: "
                    + String.valueOf(t).replaceAll("\\R+", " ") + "; the node runs single-node");
            } catch (Throwable ignored) {
                // never let the agent stop the application
            }
            return ", coordinator=" + options.coordinatorsText() + " (could not start: single-node)";
        }
    }

    /** @return the end of the start-up line; a failure is one line on {@code err} and leaves classes as they are */
    private static String instrument(BladeNode node, BladeOptions options, PrintStream err,
                                     Instrumenter instrumenter) {
        try {
            return instrumenter.install(node, options);
        } catch (Throwable t) {
            try {
                err.println(PREFIX + "cannot instrument (" + String.valueOf(t).replaceAll("\\R+", " ")
                    + "); the node runs without instrument=" + options.instrument().name().toLowerCase(Locale.ROOT)
                    + ", explicitGc=" + options.explicitGc().name().toLowerCase(Locale.ROOT));
            } catch (Throwable ignored) {
                // never let the agent stop the application
            }
            return ", instrumentation failed";
        }
    }

    private static void failed(PrintStream err, Throwable t) {
        try {
            err.println(PREFIX + "could not start: " + String.valueOf(t).replaceAll("\\R+", " ") + RUNS_ON);
        } catch (Throwable ignored) {
            // nothing left to do: never let the agent stop the application
        }
    }
}
