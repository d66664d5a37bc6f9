package io.vesta.client;

import io.vesta.InvalidSettingException;

import java.util.Map;

/**
 * The bearer token of servers that require one ({@link RemoteIdServiceBuilder#token}), checked by {@code build()}:
 * 1 to 1024 visible ASCII characters, and no {@code Authorization} header of the user's beside it. A type of its own
 * so that the token is never shown: not in an error, not in {@link #toString()}.
 */
final class BearerToken {

    private final String token;

    private BearerToken(String token) {
        this.token = token;
    }

    /**
     * @param settingPrefix the prefix of the client's settings, for the error
     * @param token the token as configured, or null for none
     * @param headers the other headers as configured, which must not carry an {@code Authorization} of their own
     * @return the token, or null when {@code token} is null
     * @throws InvalidSettingException without the token's text, when it cannot be sent
     */
    static BearerToken check(String settingPrefix, String token, Map<String, String> headers) {
        if (token == null) {
            return null;
        }
        if (token.isEmpty() || token.length() > 1024 || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new InvalidSettingException(settingPrefix + "token", "(not shown)",
                    "1 to 1024 visible ASCII characters without spaces: one of the servers' vesta.server.tokens",
                    "is not a usable token: it has " + token.length() + " characters");
        }
        if (headers.keySet().stream().anyMatch(name -> name.equalsIgnoreCase("Authorization"))) {
            throw new InvalidSettingException(settingPrefix + "headers.Authorization", "(not shown)",
                    "no Authorization header together with " + settingPrefix + "token, which sends one",
                    "would be sent twice");
        }
        return new BearerToken(token);
    }

    /** The value of the {@code Authorization} header that sends the token. */
    String authorization() {
        return "Bearer " + token;
    }

    @Override
    public String toString() {
        return "(not shown)";
    }
}
