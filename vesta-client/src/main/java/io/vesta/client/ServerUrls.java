package io.vesta.client;

import io.vesta.InvalidSettingException;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The servers' base URLs as {@link RemoteIdServiceBuilder#build()} accepts them: each an http or https URL with a host
 * and no query, each listed once, at least one. Parsed from text in {@code build()}, so that a bad entry is refused
 * with the setting it came from and the whole list as configured.
 */
record ServerUrls(List<URI> uris) {

    private static final String ALLOWED = "a comma-separated list of the base URLs of the central servers,"
            + " such as http://10.0.0.1:8080,http://10.0.0.2:8080";

    /**
     * @param setting the setting the entries came from, for the error
     * @param entries the URLs as configured, each trimmed before it is parsed
     * @throws InvalidSettingException when there is none, or an entry is not a base URL or is listed twice
     */
    static ServerUrls parse(String setting, List<String> entries) {
        if (entries.isEmpty()) {
            throw new InvalidSettingException(setting, null, ALLOWED);
        }
        String value = String.join(",", entries.stream().map(String::valueOf).toList());
        List<URI> uris = new ArrayList<>();
        Set<URI> seen = new HashSet<>();
        for (String server : entries) {
            String text = server == null ? "" : server.trim();
            URI uri;
            try {
                uri = URI.create(text);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(setting, value, ALLOWED, "has an entry that is not a URL: '"
                        + text + "' (" + e.getMessage() + ")");
            }
            String scheme = uri.getScheme();
            if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || uri.getHost() == null
                    || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new InvalidSettingException(setting, value, ALLOWED,
                        "has an entry that is not an http or https base URL with a host and no query: '" + text + "'");
            }
            if (!seen.add(uri)) {
                throw new InvalidSettingException(setting, value, ALLOWED + ", each listed once",
                        "lists " + text + " twice");
            }
            uris.add(uri);
        }
        return new ServerUrls(List.copyOf(uris));
    }
}
