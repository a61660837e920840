package io.bladegc.benchmarks.load;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * {@link OpenLoopLoad}'s command line, parsed: {@code --url} (required), {@code --rate} (1000), {@code --duration}
 * (30s), {@code --warmup} (10s), {@code --timeout} (10s), {@code --connections} (64), {@code --arrivals}
 * ({@code constant} or {@code poisson}), {@code --method} (GET), {@code --interval-log FILE} (none),
 * {@code --save FILE} (none). Immutable.
 *
 * @param load the configured load
 * @param save where to save the result, or {@code null}
 * @param description one line saying what will run, for the log
 */
record LoadCommandLine(OpenLoopLoad load, Path save, String description) {
    static final String USAGE = "usage: OpenLoopLoad --url URL [--rate PER_SECOND] [--duration 30s] [--warmup 10s]"
        + " [--timeout 10s] [--connections 64] [--arrivals constant|poisson]"
        + " [--method GET] [--interval-log FILE] [--save FILE]";

    /**
     * @param args the arguments, as pairs of option and value
     * @return the parsed command line
     * @throws IllegalArgumentException naming the first bad, unknown or missing option
     */
    static LoadCommandLine parse(String... args) {
        Path save = null;
        Path intervalLog = null;
        URI url = null;
        double rate = 1000;
        Duration duration = Duration.ofSeconds(30);
        Duration warmup = Duration.ofSeconds(10);
        Duration timeout = Duration.ofSeconds(10);
        boolean poisson = false;
        int connections = 64;
        String method = "GET";
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + args[i]);
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--url": url = URI.create(v); break;
                case "--rate": rate = Double.parseDouble(v); break;
                case "--duration": duration = OpenLoopLoad.parseDuration(v); break;
                case "--warmup": warmup = OpenLoopLoad.parseDuration(v); break;
                case "--timeout": timeout = OpenLoopLoad.parseDuration(v); break;
                case "--arrivals":
                    if (!v.equals("constant") && !v.equals("poisson")) {
                        throw new IllegalArgumentException("--arrivals takes constant or poisson, not " + v);
                    }
                    poisson = v.equals("poisson");
                    break;
                case "--connections": connections = Integer.parseInt(v); break;
                case "--method": method = v; break;
                case "--save": save = Path.of(v); break;
                case "--interval-log": intervalLog = Path.of(v); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (url == null) {
            throw new IllegalArgumentException("--url is required");
        }
        OpenLoopLoad load = OpenLoopLoad.builder(url).rate(rate).duration(duration).warmup(warmup).timeout(timeout)
            .poisson(poisson).intervalLog(intervalLog).connections(connections).method(method).build();
        String description = String.format(Locale.ROOT, "open-loop load: %s %s at %.0f/s (%s), warm-up %s,"
            + " measuring %s", method, url, rate, poisson ? "Poisson" : "constant", human(warmup), human(duration));
        return new LoadCommandLine(load, save, description);
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
