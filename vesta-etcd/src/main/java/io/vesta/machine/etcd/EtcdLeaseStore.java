package io.vesta.machine.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vesta.machine.LeaseEntry;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.StoreMark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The etcd side of the leases: under the prefix one key per machine ID ({@link LeaseEntry}, key {@code <prefix><id as
 * 4 digits>}) and the key {@value #STORE_KEY} with the store mark ({@link StoreMark}: the cluster ID the leases were
 * last claimed on). Reads are one linearizable range read; every write is one transaction compared on the mod revision
 * of each key it writes (0: the key must be absent). Every request is bounded by the command timeout. A test
 * subclasses it to lose a reply or step in between a read and a write.
 */
class EtcdLeaseStore implements AutoCloseable {

    /** The key under the prefix that is no machine ID. */
    static final String STORE_KEY = "store";

    private final Client client;
    private final boolean ownsClient;
    private final String prefix;
    private final String where;
    private final Duration commandTimeout;

    /** @param ownsClient whether {@link #close()} closes the client too */
    EtcdLeaseStore(Client client, boolean ownsClient, String prefix, String where, Duration commandTimeout) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.prefix = prefix;
        this.where = where;
        this.commandTimeout = commandTimeout;
    }

    /** A store on the same client and prefix as {@code other}, which is then never used: for a test's subclass. */
    EtcdLeaseStore(EtcdLeaseStore other) {
        this(other.client, other.ownsClient, other.prefix, other.where, other.commandTimeout);
    }

    String prefix() {
        return prefix;
    }

    Duration commandTimeout() {
        return commandTimeout;
    }

    /** Where the keys live, for messages: {@code "prefix /vesta/machine-ids/ at [http://127.0.0.1:2379]"}. */
    String describe() {
        return "prefix " + prefix + " at " + where;
    }

    private ByteSequence key(String name) {
        return ByteSequence.from(prefix + name, StandardCharsets.UTF_8);
    }

    private ByteSequence key(long machineId) {
        return key(String.format("%04d", machineId));
    }

    /**
     * The answer to {@code request}, sent once more while the command timeout lasts if its connection broke before an
     * answer (a member restarting, a connection reset): safe for a transaction too, since a repeat of one that landed
     * fails its compares, which the caller tells from a write of another.
     */
    private <T> T await(Supplier<CompletableFuture<T>> request, String what) throws Exception {
        long deadline = System.nanoTime() + commandTimeout.toNanos();
        while (true) {
            CompletableFuture<T> future = request.get();
            try {
                return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                future.cancel(true);
                throw new TimeoutException("etcd did not answer " + what + " within " + commandTimeout.toMillis()
                        + " ms");
            } catch (ExecutionException e) {
                Status.Code code = e.getCause() instanceof StatusRuntimeException s ? s.getStatus().getCode() : null;
                if (code != Status.Code.UNAVAILABLE && code != Status.Code.UNKNOWN
                        || deadline - System.nanoTime() <= 0) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        }
    }

    /** Every key under the prefix in one linearizable read, with the cluster ID that answered. */
    Snapshot read() throws Exception {
        GetResponse response = await(() -> client.getKVClient().get(key(""), GetOption.builder().isPrefix(true)
                .build()), "a read of " + describe());
        NavigableMap<Long, LeaseEntry> entries = new TreeMap<>();
        NavigableMap<Long, Long> revisions = new TreeMap<>();
        String mark = null;
        long markRevision = 0;
        for (KeyValue kv : response.getKvs()) {
            String name = kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
            String value = kv.getValue().toString(StandardCharsets.UTF_8);
            if (STORE_KEY.equals(name)) {
                mark = value;
                markRevision = kv.getModRevision();
                continue;
            }
            LeaseEntry entry = name.matches("[0-9]{4}") ? LeaseEntry.parse(Long.parseLong(name), value) : null;
            if (entry == null) {
                throw new MachineIdUnavailableException("Key '" + prefix + name + "' of " + describe() + " holds '"
                        + value + "', which is no Vesta machine-ID lease (a key <prefix><4 digits> holding"
                        + " generation|leaseExpiry|highWater|token|owner); the prefix must hold nothing but Vesta's"
                        + " leases");
            }
            entries.put(entry.machineId(), entry);
            revisions.put(entry.machineId(), kv.getModRevision());
        }
        return new Snapshot(response.getHeader().getClusterId(), mark, markRevision, entries, revisions);
    }

    /**
     * Writes {@code entries} (and {@code mark} unless null) if every key's mod revision is still the one
     * {@code revisions} gives by machine ID (0 or none: absent), and the store mark's {@code markRevision} when that
     * is not negative: a claim, a fenced renewal or release, an operator's end.
     */
    Written write(List<LeaseEntry> entries, NavigableMap<Long, Long> revisions, StoreMark mark, long markRevision)
            throws Exception {
        List<Cmp> compares = new ArrayList<>(entries.size() + 1);
        List<Op> puts = new ArrayList<>(entries.size() + 1);
        if (markRevision >= 0) {
            compares.add(unchanged(key(STORE_KEY), markRevision));
        }
        if (mark != null) {
            puts.add(Op.put(key(STORE_KEY), bytes(mark.encode()), PutOption.DEFAULT));
        }
        for (LeaseEntry entry : entries) {
            compares.add(unchanged(key(entry.machineId()), revisions.getOrDefault(entry.machineId(), 0L)));
            puts.add(Op.put(key(entry.machineId()), bytes(entry.encode()), PutOption.DEFAULT));
        }
        TxnResponse response = await(() -> client.getKVClient().txn().If(compares.toArray(Cmp[]::new))
                .Then(puts.toArray(Op[]::new)).commit(), "a write of " + entries.size() + " keys in " + describe());
        return new Written(response.isSucceeded(), response.getHeader().getRevision(),
                response.getHeader().getClusterId());
    }

    /** A compare that holds while the key was last written at {@code revision}, or is absent for 0. */
    private static Cmp unchanged(ByteSequence key, long revision) {
        return revision == 0 ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision));
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    /**
     * One read of the prefix: the cluster ID that answered, the store mark and its mod revision (0: none), the leases
     * and their keys' mod revisions by machine ID.
     */
    record Snapshot(long clusterId, String mark, long markRevision, NavigableMap<Long, LeaseEntry> entries,
            NavigableMap<Long, Long> revisions) {
    }

    /** What a transaction did: whether its compares held, and the header's revision and cluster ID. */
    record Written(boolean succeeded, long revision, long clusterId) {
    }
}
