package io.vesta.client;

import io.vesta.InvalidSettingException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The extra headers sent with every request ({@link RemoteIdServiceBuilder#header}), checked so that a bad one is
 * refused by {@code build()} with its setting rather than by the JDK's client at the first fetch: a valid name, not
 * one the client sets itself, a value on one line.
 */
record RequestHeaders(Map<String, String> headers) {

    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    /** Headers the JDK's client sets itself and refuses to take, and the Accept of the batch protocol. */
    private static final List<String> RESERVED_HEADERS = List.of("accept", "connection", "content-length", "expect",
            "host", "upgrade");

    /**
     * @param settingPrefix the prefix of the client's settings, for the error
     * @param headers the headers as configured, in order
     * @throws InvalidSettingException naming the first header that cannot be sent
     */
    static RequestHeaders check(String settingPrefix, Map<String, String> headers) {
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String name = header.getKey();
            String setting = settingPrefix + "headers." + name;
            if (name == null || !HEADER_NAME.matcher(name).matches()) {
                throw new InvalidSettingException(settingPrefix + "headers", name,
                        "header names of letters, digits and !#$%&'*+-.^_`|~", "is not a header name");
            }
            if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                throw new InvalidSettingException(setting, header.getValue(),
                        "a header other than " + String.join(", ", RESERVED_HEADERS),
                        "is a header the client sets itself");
            }
            String value = header.getValue();
            if (value == null || value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
                throw new InvalidSettingException(setting, value, "a header value on one line",
                        value == null ? "is required" : "has a line break");
            }
        }
        return new RequestHeaders(new LinkedHashMap<>(headers));
    }

    /** The headers to send, in configured order, then the token's {@code Authorization} if there is a token. */
    Map<String, String> with(BearerToken token) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        if (token != null) {
            all.put("Authorization", token.authorization());
        }
        return Map.copyOf(all);
    }
}
