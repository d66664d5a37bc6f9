package io.vesta.client;

import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BearerTokenTests {

    @Test
    void theTokenIsSentAsABearerAuthorizationAndNeverShown() {
        BearerToken token = BearerToken.check("vesta.client.", "s3cr3t-token", Map.of("X-Trace", "1"));

        assertThat(token.authorization()).isEqualTo("Bearer s3cr3t-token");
        assertThat(token.toString()).doesNotContain("s3cr3t");
        assertThat(RequestHeaders.check("vesta.client.", Map.of("X-Trace", "1")).with(token))
                .containsOnly(Map.entry("X-Trace", "1"), Map.entry("Authorization", "Bearer s3cr3t-token"));
    }

    @Test
    void noTokenSendsNoAuthorization() {
        assertThat(BearerToken.check("", null, Map.of())).isNull();
        assertThat(RequestHeaders.check("", Map.of("X-Trace", "1")).with(null)).containsOnly(Map.entry("X-Trace", "1"));
    }

    @Test
    void aRefusedTokenIsNotShownInTheError() {
        assertThatThrownBy(() -> BearerToken.check("vesta.client.", "has space", Map.of()))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("vesta.client.token")
                .hasMessageNotContaining("has space");
    }
}
