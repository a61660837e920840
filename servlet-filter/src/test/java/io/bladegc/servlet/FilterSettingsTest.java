package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The messages for bad settings, under the init-params' own names and under a framework's names for them. */
class FilterSettingsTest {

    private static final SettingNames PROPERTIES = SettingNames.of("property", "properties",
        orderedMap("gcOverlap", "app.gc-overlap", "drainTimeout", "app.drain-timeout", "margin", "app.margin"));

    private static FilterSettings read(Map<String, String> params, SettingNames names) {
        return FilterSettings.read(Collections.enumeration(params.keySet()), params::get, names);
    }

    @Test
    void validInitParamsAreReadAndTheBladeOptionsParsed() {
        FilterSettings s = read(orderedMap("readinessPath", "/healthz", "gcOverlap", "true", "drainTimeout", "250ms"),
            SettingNames.INIT_PARAMS);
        assertThat(s.errors()).isEmpty();
        assertThat(s.readinessPath()).isEqualTo("/healthz");
        assertThat(s.gcOverlap()).isTrue();
        assertThat(s.optionsGiven()).isTrue();
        assertThat(s.options().drainTimeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void badInitParamsAreNamedAsInitParams() {
        FilterSettings s = read(orderedMap("gcOverlap", "yes", "drainTimeot", "250ms", "drainTimeout", "250"),
            SettingNames.INIT_PARAMS);
        assertThat(s.errors()).containsExactly(
            "malformed init-param 'gcOverlap=yes': expected true or false",
            "unknown init-param 'drainTimeot'",
            "malformed option 'drainTimeout=250': a duration needs a unit (ms, s or m), e.g. 250ms or 250s");
        assertThat(s.options().enabled()).as("Blade off after a bad option").isFalse();
    }

    @Test
    void badSettingsAreNamedAsTheFrameworkNamesThem() {
        FilterSettings s = read(orderedMap("gcOverlap", "yes", "drainTimeout", "soon", "margin", "61m"), PROPERTIES);
        assertThat(s.errors()).containsExactly(
            "malformed property 'app.gc-overlap=yes': expected true or false",
            "malformed option 'app.drain-timeout=soon': expected a duration such as 20ms or 1s",
            "invalid option 'app.margin=61m': app.margin must be at most 1h (60m)");
    }

    @Test
    void anAgentOnlyOptionSaysWhereItBelongs() {
        assertThat(read(Map.of("coordinator", "http://127.0.0.1:7070"), SettingNames.INIT_PARAMS).errors())
            .containsExactly("init-param 'coordinator' is an agent option: give it to the agent "
                + "(-javaagent:...=coordinator=..., or -Dblade.coordinator); a filter's own node is a single node");
    }

    @Test
    void theValidSettingsListedAreTheOnesTheNamingNamesAndNeverTheAgentsOwn() {
        assertThat(SettingNames.INIT_PARAMS.valid())
            .isEqualTo("readinessPath, gcOverlap, enabled, strict, drainTimeout, margin, sampleInterval");
        assertThat(PROPERTIES.valid()).isEqualTo("app.gc-overlap, app.drain-timeout, app.margin");
        assertThat(PROPERTIES.name("sampleInterval")).as("one it does not name").isEqualTo("sampleInterval");
    }

    @Test
    void aNamingCannotNameWhatAFilterDoesNotTake() {
        for (String key : FilterSettings.AGENT_ONLY_KEYS) {
            assertThatThrownBy(() -> SettingNames.of("property", "properties", Map.of(key, "app." + key)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + key + "'");
        }
        assertThatThrownBy(() -> SettingNames.of("property", "properties", Map.of("drainTimeot", "x")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("'drainTimeot' is not an init-param of a Blade filter (valid: readinessPath, gcOverlap, "
                + "enabled, strict, drainTimeout, margin, sampleInterval)");
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
