package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.RecordLeaseBackend;
import io.vesta.machine.StoreMark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The Redis side of the leases: one hash per key, one field per machine ID ({@link Entry}) and the field
 * {@value #STORE_FIELD} naming the server instance the hash was last claimed on ({@link StoreMark}). Every read and
 * write is one Lua script ({@code io/vesta/machine/redis/*.lua}), run whole. One connection of its own, opened on first
 * use, every command bounded by the command timeout. A test subclasses it to step in between a read and a claim.
 */
class RedisLeaseStore implements AutoCloseable {

    /** The hash field that is no machine ID: the store mark. */
    static final String STORE_FIELD = "store";

    private static final String READ = script("read.lua");
    private static final String CLAIM = script("claim.lua");
    private static final String RENEW = script("renew.lua");
    private static final String END = script("end.lua");

    private final RedisClient client;
    private final RedisURI uri;
    private final boolean ownsClient;
    private final String key;
    private final String server;
    private final Duration commandTimeout;
    private StatefulRedisConnection<String, String> connection;
    private boolean closed;

    /** @param ownsClient whether {@link #close()} shuts the client down too */
    RedisLeaseStore(RedisClient client, RedisURI uri, boolean ownsClient, String key, Duration commandTimeout) {
        this.client = client;
        this.uri = uri;
        this.ownsClient = ownsClient;
        this.key = key;
        this.server = server(uri);
        this.commandTimeout = commandTimeout;
    }

    /** A store on the same server, key and client as {@code other}, which is then never used: for a test's subclass. */
    RedisLeaseStore(RedisLeaseStore other) {
        this(other.client, other.uri, other.ownsClient, other.key, other.commandTimeout);
    }

    String key() {
        return key;
    }

    Duration commandTimeout() {
        return commandTimeout;
    }

    /** Where {@code uri} points, without its credentials. */
    private static String server(RedisURI uri) {
        String database = uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "";
        if (uri.getSocket() != null) {
            return uri.getSocket() + database;
        }
        if (!uri.getSentinels().isEmpty()) {
            return "sentinel master " + uri.getSentinelMasterId() + database;
        }
        return uri.getHost() + ":" + uri.getPort() + database;
    }

    /** Where the hash lives, for messages: {@code "hash vesta:machine-ids at 127.0.0.1:6379"}. */
    String describe() {
        return "hash " + key + " at " + server;
    }

    private synchronized RedisCommands<String, String> commands() {
        if (closed) {
            throw new IllegalStateException("The connection to Redis at " + server + " was closed");
        }
        if (connection == null) {
            connection = client.connect(StringCodec.UTF8, uri);
            connection.setTimeout(commandTimeout);
        }
        return connection.sync();
    }

    /** The server's identity and every entry of the hash, in one atomic read. */
    Snapshot read() {
        List<Object> reply = commands().eval(READ, ScriptOutputType.MULTI, key);
        String runId = (String) reply.get(0);
        long uptimeSeconds = Long.parseLong((String) reply.get(1));
        boolean promoted = !"-1".equals(reply.get(2));
        String store = null;
        NavigableMap<Long, Entry> entries = new TreeMap<>();
        for (int i = 3; i + 1 < reply.size(); i += 2) {
            String field = (String) reply.get(i);
            String value = (String) reply.get(i + 1);
            if (STORE_FIELD.equals(field)) {
                store = value;
            } else {
                Entry entry = Entry.parse(field, value, this);
                entries.put(entry.machineId(), entry);
            }
        }
        return new Snapshot(runId, uptimeSeconds, promoted, store, Collections.unmodifiableNavigableMap(entries));
    }

    /** Takes a block, {@code written}, if its entries are still {@code read}: "ok", "store" or "changed". */
    String claim(Snapshot snapshot, StoreMark mark, List<Entry> read, List<Entry> written) {
        List<String> args = new ArrayList<>(3 + 3 * written.size());
        args.add(snapshot.runId());
        args.add(snapshot.store() == null ? "" : snapshot.store());
        args.add(mark.encode());
        for (int i = 0; i < written.size(); i++) {
            args.add(Long.toString(written.get(i).machineId()));
            args.add(read.get(i) == null ? "" : read.get(i).raw());
            args.add(written.get(i).encode());
        }
        return commands().eval(CLAIM, ScriptOutputType.VALUE, new String[] { key }, args.toArray(String[]::new));
    }

    /** Writes {@code entries} under {@code fence}: "ok", "store:&lt;instance&gt;", "gone:&lt;id&gt;" or "moved:&lt;id&gt;". */
    String renew(RedisLeaseBackend.Fence fence, List<Entry> entries) {
        List<String> args = new ArrayList<>(2 + 2 * entries.size());
        args.add(fence.token());
        args.add(fence.instance());
        for (Entry entry : entries) {
            args.add(Long.toString(entry.machineId()));
            args.add(entry.encode());
        }
        return commands().eval(RENEW, ScriptOutputType.VALUE, new String[] { key }, args.toArray(String[]::new));
    }

    /** Ends every live entry carrying {@code token} (see end.lua); how many it ended. */
    long end(String token, long now, String newToken) {
        return commands().<Long>eval(END, ScriptOutputType.INTEGER, new String[] { key }, token, Long.toString(now),
                newToken);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.closeAsync();
            connection = null;
        }
        if (ownsClient) {
            // No quiet period: nothing is sent on this client any more, and close() must stay bounded.
            client.shutdownAsync(0, 2, TimeUnit.SECONDS);
        }
    }

    private static String script(String name) {
        try (InputStream in = RedisLeaseStore.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("io/vesta/machine/redis/" + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One read of the hash. {@code runId} is the server instance, {@code run_id.master_replid}; {@code store} null for
     * no store mark; {@code promoted} when the server was promoted from a replica (or cannot say).
     */
    record Snapshot(String runId, long uptimeSeconds, boolean promoted, String store, NavigableMap<Long, Entry> entries) {
    }

    /** One machine ID's lease: {@code generation|leaseExpiry|highWater|token|owner}; the token is the fence. */
    record Entry(long machineId, long generation, long leaseExpiry, long highWater, String token, String owner, String raw)
            implements RecordLeaseBackend.Record {

        Entry(long machineId, long generation, long leaseExpiry, long highWater, String token, String owner) {
            this(machineId, generation, leaseExpiry, highWater, token, owner, null);
        }

        String encode() {
            return generation + "|" + leaseExpiry + "|" + highWater + "|" + token + "|" + owner;
        }

        static Entry parse(String field, String value, RedisLeaseStore store) {
            String[] parts = value.split("\\|", 5);
            try {
                if (parts.length == 5) {
                    return new Entry(Long.parseLong(field), Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                            Long.parseLong(parts[2]), parts[3], parts[4], value);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new MachineIdUnavailableException("Field '" + field + "' of " + store.describe() + " holds '" + value
                    + "', which is no Vesta machine-ID lease (generation|leaseExpiry|highWater|token|owner); the key must"
                    + " hold nothing but Vesta's leases");
        }
    }
}
