package io.bladegc.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerTokenTest {

    @Test
    void noTokenAcceptsEverything() {
        assertThat(BearerToken.of(null).required()).isFalse();
        assertThat(BearerToken.of("").accepts(null)).isTrue();
    }

    @Test
    void aTokenMustBeCarriedAsBearer() {
        BearerToken t = BearerToken.of("s3cret");
        assertThat(t.required()).isTrue();
        assertThat(t.accepts("Bearer s3cret")).isTrue();
        assertThat(t.accepts("bearer  s3cret ")).isTrue();
        assertThat(t.accepts(null)).isFalse();
        assertThat(t.accepts("")).isFalse();
        assertThat(t.accepts("Bearer")).isFalse();
        assertThat(t.accepts("Bearer s3cre")).isFalse();
        assertThat(t.accepts("Bearer s3cret2")).isFalse();
        assertThat(t.accepts("Basic czNjcmV0")).isFalse();
        assertThat(t.accepts("s3cret")).isFalse();
        assertThat(t.toString()).doesNotContain("s3cret");
    }
}
