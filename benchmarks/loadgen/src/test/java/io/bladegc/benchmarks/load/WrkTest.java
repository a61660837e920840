package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WrkTest {
    private static final String OUTPUT = """
        Running 10s test @ http://127.0.0.1:8080/work
          2 threads and 16 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency     2.51ms    3.21ms    1.06s    92.63%
            Req/Sec     3.29k   456.72     4.13k    71.50%
          Latency Distribution
             50%  812.00us
             75%    2.63ms
             90%    4.16ms
             99%    1.02s
          65524 requests in 10.00s, 8.19MB read
          Non-2xx or 3xx responses: 12
          Socket errors: connect 0, read 1, write 0, timeout 3
        Requests/sec:   6551.45
        Transfer/sec:    838.60KB
        """;

    @Test
    void readsThroughputPercentilesMaximumAndErrorsInMilliseconds() {
        Wrk.Result r = Wrk.parse(OUTPUT).orElseThrow();
        assertThat(r.requestsPerSecond()).isEqualTo(6551.45);
        assertThat(r.requests()).isEqualTo(65_524);
        assertThat(r.percentile(50)).isCloseTo(0.812, within(1e-9));
        assertThat(r.percentile(90)).isEqualTo(4.16);
        assertThat(r.percentile(99)).isEqualTo(1020.0);
        assertThat(r.maxMillis()).isEqualTo(1060.0);
        assertThat(r.non2xx()).isEqualTo(12);
        assertThat(r.socketErrors()).isEqualTo(4);
    }

    @Test
    void aRunWithoutErrorLinesHasNone() {
        Wrk.Result r = Wrk.parse(OUTPUT.replaceAll("(?m)^.*(Non-2xx|Socket errors).*\\n", "")).orElseThrow();
        assertThat(r.non2xx()).isZero();
        assertThat(r.socketErrors()).isZero();
    }

    @Test
    void outputWithoutTheLatencyDistributionIsNotUnderstood() {
        assertThat(Wrk.parse("unable to connect to 127.0.0.1:8080 Connection refused")).isEmpty();
        assertThat(Wrk.parse(OUTPUT.replaceAll("(?m)^\\s*[0-9]+%.*\\n", ""))).isEmpty();
    }
}
