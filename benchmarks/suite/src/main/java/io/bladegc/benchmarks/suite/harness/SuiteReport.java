package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/** The parts of {@code table.md} every scenario shares: its header, the arms' notes, writing it. Stateless. */
public final class SuiteReport {
    private SuiteReport() {
    }

    /**
     * @param scenario the scenario's name
     * @param quick    whether the run is {@code --quick}
     * @param command  the command line to name
     * @param jdks     the JDKs line's text, e.g. {@code "17.0.9 (runs the load and every arm)"}
     * @return the title and the run's facts (command, start time, machine, JDKs, load average, the machine's wake-up
     *     jitter measured now for 3 s quick or 10 s full: {@link WakeupJitter}), markdown
     */
    public static String header(String scenario, boolean quick, String command, String jdks) {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        WakeupJitter jitter = WakeupJitter.measure(Duration.ofSeconds(quick ? 3 : 10));
        return "# " + scenario + (quick ? " (quick)" : "") + "\n\n"
            + "- command: `" + command + "`\n"
            + "- revision: " + revision() + "\n"
            + "- started: " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
            + "- machine: " + Runtime.getRuntime().availableProcessors() + " cores (nproc), "
            + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "\n"
            + "- JDKs: " + jdks + "\n"
            + String.format(Locale.ROOT, "- load average (1 min) at start: %.2f%n", load)
            + "- the machine's floor, before any process starts: " + jitter.summary() + "\n";
    }

    /**
     * @return {@code git describe --always --dirty} of the working directory (the runner starts in the repository's
     *     root), or why there is none
     */
    static String revision() {
        try {
            Process git = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true)
                .start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.waitFor() == 0 ? out : "unknown (git: " + out + ")";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }

    /** @return one markdown list line per arm: name, description, JVM flags */
    public static String armLines(List<Arm> arms) {
        StringBuilder md = new StringBuilder();
        arms.forEach(a -> md.append("- `").append(a.name()).append("`: ").append(a.description()).append("; `")
            .append(String.join(" ", a.jvmFlags())).append("`\n"));
        return md.toString();
    }

    /** Writes {@code md} to {@code table.md} in the results directory {@code out} and prints it on stdout. */
    public static void write(Path out, String md) throws IOException {
        Files.writeString(out.resolve("table.md"), md, StandardCharsets.UTF_8);
        System.out.print(md);
    }
}
