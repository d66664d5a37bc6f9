package io.vesta.machine.redis;

import io.lettuce.core.RedisURI;
import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every setting is checked when the provider is built, under the name the user typed; no Redis needed. */
class RedisMachineIdProviderSettingsTests {

    private static final String PREFIX = "vesta.machine-id.redis.";

    private static RedisMachineIdProvider.Builder builder() {
        return RedisMachineIdProvider.builder(RedisURI.create("redis://127.0.0.1:6379/2")).settingPrefix(PREFIX).owner("node-a");
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        RedisMachineIdProvider provider = builder().build();
        try {
            assertThat(provider.key()).isEqualTo("vesta:machine-ids");
            assertThat(provider.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
            assertThat(provider.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
            assertThat(provider.maxClockSkew()).isEqualTo(Duration.ofSeconds(1));
            assertThat(provider.commandTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(provider.closeTimeout()).isEqualTo(Duration.ofSeconds(6));
            assertThat(provider.describe()).isEqualTo("redis (hash vesta:machine-ids at 127.0.0.1:6379/2, owner 'node-a')");
        } finally {
            provider.close();
        }
    }

    @Test
    void aMissingUrlIsNamed() {
        assertThatThrownBy(() -> RedisMachineIdProvider.builder((RedisURI) null).settingPrefix(PREFIX).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("vesta.machine-id.redis.url");
    }

    @Test
    void aBlankKeyIsRefused() {
        assertThatThrownBy(() -> builder().key(" ").build()).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.redis.key").hasMessageContaining("1 to 512 characters, not blank");
    }

    @Test
    void aLeaseOutOfRangeIsRefusedWithTheRange() {
        assertThatThrownBy(() -> builder().lease(Duration.ofMillis(500)).build()).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.redis.lease").hasMessageContaining("500ms")
                .hasMessageContaining("[1000ms, 3600000ms]");
    }

    @Test
    void aHeartbeatAboveAThirdOfTheLeaseIsRefused() {
        assertThatThrownBy(() -> builder().lease(Duration.ofSeconds(9)).heartbeat(Duration.ofSeconds(4)).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("vesta.machine-id.redis.heartbeat")
                .hasMessageContaining("at most a third of vesta.machine-id.redis.lease 9000ms");
    }

    @Test
    void aClockSkewOutOfRangeIsRefused() {
        assertThatThrownBy(() -> builder().maxClockSkew(Duration.ofMinutes(2)).build()).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.redis.max-clock-skew").hasMessageContaining("[0ms, 60000ms]");
    }

    @Test
    void aBlankOwnerIsRefused() {
        assertThatThrownBy(() -> builder().owner("").build()).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.redis.owner").hasMessageContaining("is blank");
    }

    @Test
    void theCommandTimeoutFollowsTheHeartbeatBetweenASecondAndTheLease() {
        RedisMachineIdProvider fast = builder().lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        RedisMachineIdProvider slow = builder().lease(Duration.ofMinutes(10)).heartbeat(Duration.ofSeconds(30)).build();
        try {
            assertThat(fast.commandTimeout()).isEqualTo(Duration.ofSeconds(1));
            assertThat(slow.commandTimeout()).isEqualTo(Duration.ofSeconds(30));
        } finally {
            fast.close();
            slow.close();
        }
    }
}
