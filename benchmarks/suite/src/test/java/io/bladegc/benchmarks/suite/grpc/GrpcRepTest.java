package io.bladegc.benchmarks.suite.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class GrpcRepTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final GrpcOpenLoop.Result LOAD = new GrpcOpenLoop.Result(new Histogram(3), 0, Map.of(), 0, 0);

    private static JsonNode stats(String json) throws Exception {
        return JSON.readTree(json.replace('\'', '"'));
    }

    @Test
    void pausesForcedCollectionsAndShedCallsOfTheWindowAreAddedOverTheBackends() throws Exception {
        String pauses = "'gcPauses': [{'gc': 'PS Scavenge', 'action': 'end of minor GC'},"
            + " {'gc': 'G1 Concurrent GC', 'action': 'end of concurrent GC cycle'},"
            + " {'gc': 'PS MarkSweep', 'action': 'end of major GC'}]";
        List<JsonNode> start = List.of(stats("{'gcPauses': [], 'node': {'Forced': 5}, 'shed': 100}"),
            stats("{'gcPauses': [], 'node': {'Forced': 0}, 'shed': 0}"));
        List<JsonNode> end = List.of(stats("{" + pauses + ", 'node': {'Forced': 7}, 'shed': 130}"),
            stats("{" + pauses + ", 'node': {'Forced': 1}, 'shed': 4}"));

        GrpcRep r = GrpcRep.of("blade-parallel", 2, LOAD, start, end);

        assertThat(r.collections()).isEqualTo(4); // the concurrent cycle is not a pause
        assertThat(r.forced()).isEqualTo(3);
        assertThat(r.shed()).isEqualTo(34);
        assertThat(r.rep()).isEqualTo(2);
    }

    @Test
    void withoutTheAgentNothingIsForced() throws Exception {
        List<JsonNode> stats = List.of(stats("{'gcPauses': [], 'node': {}, 'shed': 0}"));
        assertThat(GrpcRep.of("g1", 1, LOAD, stats, stats).forced()).isEqualTo(-1);
        assertThatThrownBy(() -> GrpcRep.of("g1", 1, LOAD, stats, List.of()))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
