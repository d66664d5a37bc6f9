package io.vesta.autoconfigure.client;

import io.vesta.client.RemoteIdService;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Configuration of a Vesta client, {@code vesta.mode=client}: {@code vesta.client.*}. */
@ConfigurationProperties("vesta.client")
public class VestaClientProperties {

    /** Base URLs of the central servers, comma-separated, such as http://10.0.0.1:8080,http://10.0.0.2:8080. Required in client mode. */
    private List<String> servers = new ArrayList<>();

    /** IDs of the first batch, 1-100000. After it the batch size adapts to use, from 1 while calls are rare to max-prefetch: see batch-lifetime and max-id-age. */
    private int prefetch = RemoteIdService.DEFAULT_PREFETCH;

    /** Most IDs a batch grows to, from prefetch to 100000. */
    private int maxPrefetch = RemoteIdService.DEFAULT_MAX_PREFETCH;

    /** How long a batch should last, 1ms-1h, but at most an eighth of max-id-age: a batch used up sooner (or before the next one arrived) doubles the next request up to max-prefetch, one that lasted more than twice as long halves it. A busy client so asks for large batches and keeps its servers' generators busy; a quiet one keeps few IDs in memory and loses few when it stops. */
    private Duration batchLifetime = RemoteIdService.DEFAULT_BATCH_LIFETIME;

    /** Oldest an ID may be when genId() hands it out, counted from when the request that fetched it was sent (on this client's monotonic clock, so no clock of a server is trusted), 1ms-1h. Unset: 1s for max-peak, 100ms for min-granularity. Prefetched IDs that grow older are dropped unissued and counted (vesta.client.expired.ids); a client whose calls are further apart than four fifths of this fetches for each call. */
    private Duration maxIdAge;

    /** Share of a batch used when the next batch is fetched in the background, 0-1: 0.1 fetches once a tenth is used (as Leaf does), 1 only when the batch is used up. */
    private double refillThreshold = RemoteIdService.DEFAULT_REFILL_THRESHOLD;

    /** Longest one request to one server may take, connection and body included; a server that takes longer is skipped and the next one asked. With max-peak a server at its ceiling holds a request until the next second: keep it above 1s. */
    private Duration timeout = RemoteIdService.DEFAULT_TIMEOUT;

    private final Backoff backoff = new Backoff();

    private final Ssl ssl = new Ssl();

    /** Bearer token sent to the servers as Authorization: Bearer, one of their vesta.server.tokens; never logged. Use https (vesta.client.ssl.bundle) outside a trusted network. */
    private String token;

    /** Headers sent with every request to the servers, such as an Authorization token a gateway in front of them asks for; not Host, Connection, Content-Length, Expect, Upgrade or Accept, which the client sets itself. */
    private Map<String, String> headers = new LinkedHashMap<>();

    /** What genId() does when no server answers: none throws an exception listing every server and its error; embedded issues local IDs (genMethod 0, under an embedded-range vesta.machine-id.*) until a server answers again. */
    private Fallback fallback = Fallback.NONE;

    public List<String> getServers() {
        return servers;
    }

    public void setServers(List<String> servers) {
        this.servers = servers;
    }

    public int getPrefetch() {
        return prefetch;
    }

    public void setPrefetch(int prefetch) {
        this.prefetch = prefetch;
    }

    public int getMaxPrefetch() {
        return maxPrefetch;
    }

    public void setMaxPrefetch(int maxPrefetch) {
        this.maxPrefetch = maxPrefetch;
    }

    public Duration getBatchLifetime() {
        return batchLifetime;
    }

    public void setBatchLifetime(Duration batchLifetime) {
        this.batchLifetime = batchLifetime;
    }

    public Duration getMaxIdAge() {
        return maxIdAge;
    }

    public void setMaxIdAge(Duration maxIdAge) {
        this.maxIdAge = maxIdAge;
    }

    public double getRefillThreshold() {
        return refillThreshold;
    }

    public void setRefillThreshold(double refillThreshold) {
        this.refillThreshold = refillThreshold;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Backoff getBackoff() {
        return backoff;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public Map<String, String> getHeaders() {
        return headers;
    }

    public void setHeaders(Map<String, String> headers) {
        this.headers = headers;
    }

    public Fallback getFallback() {
        return fallback;
    }

    public void setFallback(Fallback fallback) {
        this.fallback = fallback;
    }

    /** What happens when no server answers. */
    public enum Fallback {
        /** genId() fails with the list of servers and their errors. */
        NONE,
        /** Local IDs, genMethod 0, under an embedded-range machine ID, until a server answers again. */
        EMBEDDED
    }

    /** {@code vesta.client.ssl.*}: TLS to https servers. */
    public static class Ssl {

        /** Name of the SSL bundle (spring.ssl.bundle.*) whose trust material, and key for mutual TLS, the client uses with https servers. Unset: the JDK's default trust store. */
        private String bundle;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }
    }

    /** {@code vesta.client.backoff.*}: how long a failed server is left alone. */
    public static class Backoff {

        /** How long a server is skipped after a failure; doubles with each further failure in a row. */
        private Duration initial = RemoteIdService.DEFAULT_INITIAL_BACKOFF;

        /** The longest a failing server is skipped at a time. */
        private Duration max = RemoteIdService.DEFAULT_MAX_BACKOFF;

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }
    }
}
